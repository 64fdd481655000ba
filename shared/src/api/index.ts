export * from './common.js';
export * from './identity.js';
