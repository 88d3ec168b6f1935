import pino, { type DestinationStream, type Logger } from 'pino';

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, base: { service: 'likeness' }, redact: ['req.headers.cookie', 'req.headers.authorization'] }, destination);
}
export type { DestinationStream, Logger };
