import { describe, expect, it } from 'vitest';
import { localChainEnv, type RuntimeInfo } from './runtime-file';

const running: RuntimeInfo = {
  launcherPid: 1,
  startedAt: '2026-11-27T00:00:00.000Z',
  localRpcUrls: { POLYGON: 'http://127.0.0.1:8545', SOLANA: 'http://127.0.0.1:8899' },
};

describe("a tool reading a running stack's local chains", () => {
  it('gets their URLs and counts them as local (one confirmation), as the stack does', () => {
    expect(localChainEnv(running, {})).toEqual({
      RPC_URL_POLYGON: 'http://127.0.0.1:8545',
      RPC_URL_SOLANA: 'http://127.0.0.1:8899',
      LOCAL_CHAINS: 'POLYGON,SOLANA',
      LOCAL_CHAIN_NODES: 'true',
    });
  });

  it("keeps the tool's own settings: a chain it points elsewhere is not local, its LOCAL_CHAINS wins", () => {
    expect(localChainEnv(running, { RPC_URL_POLYGON: 'https://polygon.example', LOCAL_CHAIN_NODES: 'true' })).toEqual({
      RPC_URL_SOLANA: 'http://127.0.0.1:8899',
      LOCAL_CHAINS: 'SOLANA',
    });
    expect(localChainEnv(running, { RPC_URL_POLYGON: 'http://127.0.0.1:8545', LOCAL_CHAINS: 'POLYGON' })).toEqual({
      RPC_URL_SOLANA: 'http://127.0.0.1:8899',
    });
  });

  it('adds nothing without a running stack', () => {
    expect(localChainEnv(undefined, {})).toEqual({});
  });
});
