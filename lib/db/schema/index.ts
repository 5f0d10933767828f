export * from './merchants';
export * from './api-keys';
export * from './charges';
export * from './idempotency-keys';
export * from './rate-limits';
