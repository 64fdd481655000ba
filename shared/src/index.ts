export * from './config.js';
export * from './enums.js';
export * from './errors.js';
export * from './logger.js';
export * from './api/index.js';
export * from './protocol.js';
export * from './systemd-notify.js';
