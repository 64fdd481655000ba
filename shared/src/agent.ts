// The part of shared/ a bridge agent needs: protocol, config loading, logger, sd_notify. Not the
// REST API's schemas (api/), which would cost the agent about 9 MiB of memory for nothing.
export * from './config.js';
export * from './enums.js';
export * from './errors.js';
export * from './logger.js';
export * from './protocol.js';
export * from './systemd-notify.js';
