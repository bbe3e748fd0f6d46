/** `Retry-After` in whole seconds, rounded up and at least 1 (DESIGN.md). */
export const retryAfterSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));
