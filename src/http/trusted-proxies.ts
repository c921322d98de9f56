/** Shared with realmgate's resource-server package (packages/resource-server), which holds it. */
export * from '@realmgate/resource-server/shared/trusted-proxies';
