/** `realmgate/resource-server`: the plugin of the @realmgate/resource-server package (packages/resource-server), as before. */
export * from '@realmgate/resource-server';
export { default } from '@realmgate/resource-server';
