export * from './config.js';
export * from './enums.js';
export * from './errors.js';
export * from './logger.js';
