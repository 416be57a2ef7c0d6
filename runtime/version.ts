/** The version lmforge reports (CLI, /docs, system_fingerprint); keep equal to package.json's. */
export const LMFORGE_VERSION = '0.1.0';
