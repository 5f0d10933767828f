export * from './merchants';
export * from './api-keys';
export * from './charges';
export * from './idempotency-keys';
export * from './rate-limits';
export * from './users';
export * from './wallets';
export * from './merchant-members';
