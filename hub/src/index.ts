export { buildApp } from './app.js';
export type { HubContext } from './context.js';
export { openHub } from './hub.js';
export { settingsFromEnv } from './settings.js';
