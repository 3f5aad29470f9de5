// The path prefixes a shared suite runs under: none (1.41) and each version berth serves that the seed marks.
export const VERSION_PREFIXES = ['', '/v1.25', '/v1.40', '/v1.41'] as const;
