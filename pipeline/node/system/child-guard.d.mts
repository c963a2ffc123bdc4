// Types of child-guard.mjs (plain JavaScript, so a child installs it before the TypeScript loader).
export declare const STOP_GRACE_MS: number;
export declare const ABANDONED_EXIT: { parent: 1; SIGTERM: 143; SIGINT: 130 };
export declare function holdWork(): () => void;
export declare function onStop(hook: () => unknown): void;
export declare function stopping(): boolean;
export declare function guardChild(): void;
export declare function endWithParent(expectedParent?: number): void;
