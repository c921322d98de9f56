/** The part of madge's API (it ships no types) that test/structure/import-circles.test.ts uses. */
declare module 'madge' {
  interface MadgeConfig {
    fileExtensions?: string[];
    tsConfig?: string;
    excludeRegExp?: RegExp[];
  }
  interface MadgeResult {
    /** Each circle as the files in it, relative to the folder madge read, in import order. */
    circular(): string[][];
    obj(): Record<string, string[]>;
  }
  export default function madge(path: string, config?: MadgeConfig): Promise<MadgeResult>;
}
