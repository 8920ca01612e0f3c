import pino from 'pino';

/** The process-wide structured JSON logger. */
export const logger = pino({
  level: 'info',
  base: { service: 'herald' },
  timestamp: pino.stdTimeFunctions.isoTime,
  redact: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
});

export type Logger = pino.Logger;
