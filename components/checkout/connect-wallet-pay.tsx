'use client';

import { useEffect, useRef, useState } from 'react';
import { erc20Abi, type Hex } from 'viem';
import { http, injected, useConnect, useSendTransaction, useSwitchChain, useWriteContract, type CreateConnectorFn } from 'wagmi';
import { Button } from '@/components/ui/button';

export type WalletKind = 'injected' | 'walletConnect';

/**
 * wagmi's WalletConnect connector (its SDK is large: fetched only when the payer picks it). wagmi hands
 * it the config's RPC URLs for reads, and our chains have none (a browser wallet brings its own; see
 * lib/chains/wagmi-config.ts): without this the connector throws UrlRequiredError before the QR code.
 * Reads go through WalletConnect's RPC, as its provider does when given no URL.
 */
async function walletConnectConnector(projectId: string): Promise<CreateConnectorFn> {
  const { walletConnect } = await import('wagmi/connectors/walletConnect');
  const create = walletConnect({ projectId, showQrModal: true });
  return (config) =>
    create({
      ...config,
      transports: Object.fromEntries(
        config.chains.map((chain) => [
          chain.id,
          http(`https://rpc.walletconnect.org/v1/?chainId=eip155:${chain.id}&projectId=${projectId}`),
        ]),
      ),
    });
}

/**
 * "Connect wallet": the browser wallet (wagmi's injected connector), or a phone wallet through
 * WalletConnect when the server has a project id, switches to the charge's chain and sends the exact
 * amount to the deposit address in one click. The chain watcher does the rest.
 */
export function ConnectWalletPay(props: {
  chainId: number;
  depositAddress: string;
  tokenAddress: string;
  isNative: boolean;
  amountBaseUnits: string;
  label: string;
  /** WalletConnect Cloud project id; null: no WalletConnect button. */
  walletConnectProjectId: string | null;
  /** Start paying at once with this wallet (the lazy loader already had the click). */
  autoStart?: WalletKind;
}) {
  const { connectAsync } = useConnect();
  const { switchChainAsync } = useSwitchChain();
  const { sendTransactionAsync } = useSendTransaction();
  const { writeContractAsync } = useWriteContract();
  const [state, setState] = useState<{ busy?: boolean; error?: string; txHash?: string }>({});

  async function pay(kind: WalletKind) {
    if (kind === 'injected' && !('ethereum' in window)) {
      setState({ error: 'No browser wallet found. Use the address or QR code instead.' });
      return;
    }
    setState({ busy: true });
    try {
      const connector =
        kind === 'walletConnect' && props.walletConnectProjectId ? await walletConnectConnector(props.walletConnectProjectId) : injected();
      const { chainId } = await connectAsync({ connector });
      if (chainId !== props.chainId) await switchChainAsync({ chainId: props.chainId });
      const amount = BigInt(props.amountBaseUnits);
      const txHash = props.isNative
        ? await sendTransactionAsync({ to: props.depositAddress as Hex, value: amount, chainId: props.chainId })
        : await writeContractAsync({
            address: props.tokenAddress as Hex,
            abi: erc20Abi,
            functionName: 'transfer',
            args: [props.depositAddress as Hex, amount],
            chainId: props.chainId,
          });
      setState({ txHash });
    } catch (cause) {
      // The payer reads a sentence; the console keeps the wallet's own error for whoever helps them.
      console.error('Wallet payment failed', cause);
      const message = cause instanceof Error ? cause.message : '';
      setState({ error: /reject|denied/i.test(message) ? 'The wallet declined the payment.' : 'The wallet could not send the payment.' });
    }
  }

  const started = useRef(false);
  useEffect(() => {
    if (!props.autoStart || started.current) return;
    started.current = true;
    void pay(props.autoStart);
    // Once, on mount: the click that loaded this component.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  if (state.txHash) {
    return (
      <p role="status" className="text-sm text-slate-700" data-testid="wallet-tx">
        Sent from your wallet. Waiting for the network… <span className="break-all font-mono text-xs">{state.txHash}</span>
      </p>
    );
  }
  return (
    <div className="flex flex-col gap-2">
      <Button type="button" variant="secondary" onClick={() => pay('injected')} disabled={state.busy}>
        {state.busy ? 'Confirm in your wallet…' : `Connect wallet and pay ${props.label}`}
      </Button>
      {props.walletConnectProjectId && (
        <Button type="button" variant="secondary" onClick={() => pay('walletConnect')} disabled={state.busy} data-testid="walletconnect">
          Pay with WalletConnect
        </Button>
      )}
      {state.error && (
        <p role="alert" className="text-sm text-rose-700">
          {state.error}
        </p>
      )}
    </div>
  );
}
