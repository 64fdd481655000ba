export * from './common.js';
export * from './identity.js';
export * from './resources.js';
export * from './webhooks.js';
export * from './spaces.js';
export * from './billing.js';
export * from './keys.js';
export * from './sign-in.js';
