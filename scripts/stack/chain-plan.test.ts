import { describe, expect, it } from 'vitest';
import { EVM_CHAIN_NAMES } from '@/lib/chains/registry';
import { planChains } from './chain-plan';

describe('which chains the launcher runs locally', () => {
  it('development: every EVM chain without an RPC URL gets a local node; Solana is not served', () => {
    const plan = planChains({ NODE_ENV: 'development', LOCAL_CHAIN_NODES: true, RPC_URL_BSC: 'https://bsc.example/rpc' });
    expect(plan.localChains).toEqual(EVM_CHAIN_NAMES.filter((chain) => chain !== 'BSC'));
    expect(plan.unserved).toEqual(['SOLANA', 'SOLANA_DEVNET']);
    expect(plan.messages).toEqual([
      expect.stringMatching(/^Not served \(no RPC URL\): SOLANA, SOLANA_DEVNET\. .*RPC_URL_SOLANA, RPC_URL_SOLANA_DEVNET/),
    ]);
  });

  it('production: no local node, ever, without LOCAL_CHAIN_NODES; chains without an RPC URL are not served', () => {
    const plan = planChains({ NODE_ENV: 'production', LOCAL_CHAIN_NODES: false, RPC_URL_POLYGON: 'https://polygon.example/rpc' });
    expect(plan.localChains).toEqual([]);
    expect(plan.unserved).not.toContain('POLYGON');
    expect(plan.unserved).toContain('BSC');
    expect(plan.messages.join('\n')).toContain('RPC_URL_BSC');
    expect(plan.messages.join('\n')).not.toMatch(/WARNING|LOCAL_CHAIN_NODES/);
  });

  it('production with LOCAL_CHAIN_NODES=true: local nodes, and a warning that says they are not real', () => {
    const plan = planChains({ NODE_ENV: 'production', LOCAL_CHAIN_NODES: true });
    expect(plan.localChains).toEqual(EVM_CHAIN_NAMES);
    expect(plan.messages[0]).toMatch(/^WARNING: LOCAL_CHAIN_NODES=true in production: POLYGON, .*Nothing paid on them is real/);
  });
});
