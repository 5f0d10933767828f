import { describe, expect, it } from 'vitest';
import { CHAIN_NAMES } from '@/lib/chains/registry';
import { planChains } from './chain-plan';

describe('which chains the launcher runs locally', () => {
  it('development: every chain without an RPC URL gets a local node, the Solana chains a local cluster', () => {
    const plan = planChains({ NODE_ENV: 'development', LOCAL_CHAIN_NODES: true, RPC_URL_BSC: 'https://bsc.example/rpc' });
    expect(plan.localChains).toEqual(CHAIN_NAMES.filter((chain) => chain !== 'BSC'));
    expect(plan.localChains).toEqual(expect.arrayContaining(['SOLANA', 'SOLANA_DEVNET']));
    expect(plan.unserved).toEqual([]);
    expect(plan.messages).toEqual([]);
  });

  it('development with RPC_URL_SOLANA: that chain is the configured cluster, no local one', () => {
    const plan = planChains({ NODE_ENV: 'development', LOCAL_CHAIN_NODES: true, RPC_URL_SOLANA: 'https://solana.example/rpc' });
    expect(plan.localChains).not.toContain('SOLANA');
    expect(plan.localChains).toContain('SOLANA_DEVNET');
  });

  it('a chain in the skip list (STACK_SKIP_LOCAL_CHAINS) gets no local node and is not served', () => {
    const plan = planChains({ NODE_ENV: 'production', LOCAL_CHAIN_NODES: true }, ['DFK_TESTNET']);
    expect(plan.localChains).not.toContain('DFK_TESTNET');
    expect(plan.localChains).toContain('SOLANA_DEVNET');
    expect(plan.unserved).toEqual(['DFK_TESTNET']);
    expect(plan.messages.join('\n')).toContain('RPC_URL_DFK_TESTNET');
  });

  it('production: no local node, ever, without LOCAL_CHAIN_NODES; chains without an RPC URL are not served', () => {
    const plan = planChains({ NODE_ENV: 'production', LOCAL_CHAIN_NODES: false, RPC_URL_POLYGON: 'https://polygon.example/rpc' });
    expect(plan.localChains).toEqual([]);
    expect(plan.unserved).not.toContain('POLYGON');
    expect(plan.unserved).toEqual(expect.arrayContaining(['BSC', 'SOLANA', 'SOLANA_DEVNET']));
    expect(plan.messages.join('\n')).toContain('RPC_URL_BSC');
    expect(plan.messages.join('\n')).toContain('RPC_URL_SOLANA');
    expect(plan.messages.join('\n')).not.toMatch(/WARNING|LOCAL_CHAIN_NODES/);
  });

  it('development with LOCAL_CHAIN_NODES=false: nothing local, and the hint says how to get local nodes', () => {
    const plan = planChains({ NODE_ENV: 'development', LOCAL_CHAIN_NODES: false });
    expect(plan.localChains).toEqual([]);
    expect(plan.messages.join('\n')).toContain('unset LOCAL_CHAIN_NODES for local nodes');
  });

  it('production with LOCAL_CHAIN_NODES=true: local nodes, Solana included, and a warning that says they are not real', () => {
    const plan = planChains({ NODE_ENV: 'production', LOCAL_CHAIN_NODES: true });
    expect(plan.localChains).toEqual(CHAIN_NAMES);
    expect(plan.messages[0]).toMatch(
      /^WARNING: LOCAL_CHAIN_NODES=true in production: POLYGON, .*SOLANA_DEVNET .*Nothing paid on them is real/,
    );
  });
});
