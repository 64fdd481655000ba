export * from './card-reader.js';
export * from './relay.js';
