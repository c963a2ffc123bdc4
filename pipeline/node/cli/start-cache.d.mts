// Types of start-cache.mjs (plain JavaScript, so bin.mjs can run it before the TypeScript loader).
export declare function sourceKey(entries?: readonly string[]): string | null;
export declare function rememberToolsOutput(format: 'openai' | 'mcp', output: string): void;
export declare function answerWithoutLoader(argv: readonly string[]): boolean;
export declare function toolformerCacheDir(env?: NodeJS.ProcessEnv): string;
