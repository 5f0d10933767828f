import Link from 'next/link';
import { formatExactTokenAmount, formatTokenNumber } from '@/lib/format-amount';
import { formatUsd } from '@/lib/pricing/approximate-usd';
import type { HomeChain } from '@/lib/wallets/cached-balance';

const STATUS_TEXT: Record<Exclude<HomeChain['status'], 'ok'>, string> = {
  not_connected: 'unavailable: this network is not connected',
  unreachable: 'unavailable: the network did not answer, try again shortly',
};

/** One chain of a wallet on Home: its tokens with amounts, USD values, and Buy / Send links. */
export function ChainBalances({ chain, address, canSend }: { chain: HomeChain; address: string; canSend: boolean }) {
  return (
    <div className="rounded-xl bg-white p-4 ring-1 ring-slate-200" data-testid="chain-balances" data-chain={chain.chain}>
      <h3 className="text-sm font-semibold text-slate-800">{chain.displayName}</h3>
      {chain.status !== 'ok' ? (
        <p className="mt-1 text-sm text-slate-500" data-testid="chain-unavailable">
          Balances {STATUS_TEXT[chain.status]}.
        </p>
      ) : (
        <ul className="mt-2 divide-y divide-slate-100">
          {chain.tokens.map((token) => (
            <li
              key={token.tokenAddress}
              className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2"
              data-testid="token-row"
              data-symbol={token.symbol}
            >
              <div className="min-w-0 flex-1">
                <p className="text-sm font-medium">
                  {token.symbol} <span className="font-normal text-slate-500">{token.name}</span>
                </p>
                {token.amount === null ? (
                  <p className="font-mono text-sm text-slate-500" data-testid="token-amount">
                    unavailable
                  </p>
                ) : (
                  // Rounded for the token (never 18 decimals of POL); every digit on hover.
                  <p
                    className="font-mono text-sm whitespace-nowrap tabular-nums"
                    title={formatExactTokenAmount(token.amount, token.symbol)}
                    data-testid="token-amount"
                  >
                    {formatTokenNumber(token.amount, token.symbol)}
                  </p>
                )}
              </div>
              {token.usd !== undefined && (
                <p className="text-sm text-slate-600 tabular-nums" data-testid="token-usd">
                  ≈ {formatUsd(token.usd)}
                </p>
              )}
              <div className="flex gap-2">
                {!chain.isTestnet && (
                  // A full navigation: Buy redirects to the on-ramp.
                  <a
                    href={`/wallet/buy?${new URLSearchParams({ chain: chain.chain, token: token.symbol, wallet: address })}`}
                    className="rounded-md px-2 py-1 text-sm font-semibold text-brand-700 ring-1 ring-slate-200 hover:bg-slate-50"
                    aria-label={`Buy ${token.symbol} on ${chain.displayName}`}
                  >
                    Buy
                  </a>
                )}
                {canSend && token.baseUnits !== null && token.baseUnits > 0n && (
                  <Link
                    href={`/wallet/send?${new URLSearchParams({ token: `${chain.chain}:${token.tokenAddress}` })}`}
                    className="rounded-md px-2 py-1 text-sm font-semibold text-slate-700 ring-1 ring-slate-200 hover:bg-slate-50"
                    aria-label={`Send ${token.symbol} on ${chain.displayName}`}
                  >
                    Send
                  </Link>
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
