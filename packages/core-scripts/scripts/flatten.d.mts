// Types of flatten.mjs for the TypeScript tests that import it.
export declare class CodegenError extends Error {}
export declare function flattenLua(luaDir: string, file: string, text?: string): string;
