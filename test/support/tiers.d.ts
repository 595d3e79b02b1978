// Types of the tier lists in tiers.js (plain JavaScript, since jest reads it before any TypeScript loader).
export declare const SLOW_FILES: string[];
export declare const MEMORY_FILES: string[];
export declare const TWIN_FILES: string[];
export declare const STACK_TOO: string[];
