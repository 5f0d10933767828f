'use client';

import { useEffect, useRef, useState } from 'react';
import { erc20Abi, type Hex } from 'viem';
import { injected, useConnect, useSendTransaction, useSwitchChain, useWriteContract } from 'wagmi';
import { Button } from '@/components/ui/button';

/**
 * "Connect wallet": the browser wallet (wagmi's injected connector) switches to the charge's chain and
 * sends the exact amount to the deposit address in one click. The chain watcher does the rest.
 */
export function ConnectWalletPay(props: {
  chainId: number;
  depositAddress: string;
  tokenAddress: string;
  isNative: boolean;
  amountBaseUnits: string;
  label: string;
  /** Start paying at once (the lazy loader already had the click). */
  autoStart?: boolean;
}) {
  const { connectAsync } = useConnect();
  const { switchChainAsync } = useSwitchChain();
  const { sendTransactionAsync } = useSendTransaction();
  const { writeContractAsync } = useWriteContract();
  const [state, setState] = useState<{ busy?: boolean; error?: string; txHash?: string }>({});

  async function pay() {
    if (!('ethereum' in window)) {
      setState({ error: 'No browser wallet found. Use the address or QR code instead.' });
      return;
    }
    setState({ busy: true });
    try {
      const { chainId } = await connectAsync({ connector: injected() });
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
      const message = cause instanceof Error ? cause.message : '';
      setState({ error: /reject|denied/i.test(message) ? 'The wallet declined the payment.' : 'The wallet could not send the payment.' });
    }
  }

  const started = useRef(false);
  useEffect(() => {
    if (!props.autoStart || started.current) return;
    started.current = true;
    void pay();
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
    <div className="flex flex-col gap-1">
      <Button type="button" variant="secondary" onClick={pay} disabled={state.busy}>
        {state.busy ? 'Confirm in your wallet…' : `Connect wallet and pay ${props.label}`}
      </Button>
      {state.error && (
        <p role="alert" className="text-sm text-rose-700">
          {state.error}
        </p>
      )}
    </div>
  );
}
