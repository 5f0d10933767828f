/**
 * Where the smart-account contracts of ADR 0035 live: the canonical addresses of the ERC-4337 EntryPoint
 * v0.8 and of Simple7702Account (`@account-abstraction/contracts` 0.8.0), the same on every chain that has
 * them (created through the deterministic CREATE2 deployer; provision-local-smart-accounts.ts does it locally).
 */
import type { Address } from 'viem';

export const ENTRY_POINT_V08_ADDRESS: Address = '0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108';
export const SIMPLE_7702_ACCOUNT_ADDRESS: Address = '0xe6Cae83BdE06E4c305530e199D7217f42808555B';
