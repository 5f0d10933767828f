/**
 * The Contracts tab's "Register a contract": the chain must be of the dashboard's mode (test networks in
 * test mode) and reachable; the contract is read on chain (inspect-contract.ts) and what was found is
 * kept with the registration. Registering the same address again refreshes what was read (a new ABI).
 *
 * Only item contracts (finding N3): a token the service knows or holds is refused (`contract_is_token`,
 * refuse-token-contract.ts). Registering or refreshing is an owner's act, confirmed with their PIN or a
 * passkey (step-up), and every owner is e-mailed.
 */
import { getAddress, isAddress, type Address } from 'viem';
import { verifyStepUp, type StepUpProof } from '@/lib/accounts/step-up';
import { recordAudit } from '@/lib/audit/record-audit';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { merchantContracts, type ApiKeyMode, type MerchantContractRow } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { newId } from '@/lib/ids';
import { notifyOwners } from '@/lib/merchants/notify-owners';
import { authorizeMember } from '@/lib/merchants/permissions';
import { ensureMerchantWallets } from '@/lib/keyring/create-wallets';
import { parseUploadedAbi } from './abi';
import { inspectContract } from './inspect-contract';
import { refuseTokenContract } from './refuse-token-contract';
import { registerContractInputSchema } from './schemas';

export async function registerContract(input: {
  userId: string;
  merchantId: string;
  mode: ApiKeyMode;
  ip?: string | null;
  /** The owner's PIN or passkey assertion (components/account/step-up-fields.tsx). */
  stepUp?: StepUpProof;
  values: unknown;
}): Promise<MerchantContractRow> {
  await authorizeMember(getDb(), { ...input, permission: 'contracts.manage' });
  const parsed = registerContractInputSchema.safeParse(input.values);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError('invalid_request', issue.message, { param: issue.path.join('.') });
  }
  const { chain, label } = parsed.data;
  const info = CHAINS[chain];
  if (info.family !== 'evm') {
    throw new AppError('unsupported_chain', `Contracts can be registered on EVM networks; ${info.displayName} is not one.`, {
      param: 'chain',
    });
  }
  if (info.isTestnet !== (input.mode === 'test')) {
    throw new AppError(
      'unsupported_chain',
      input.mode === 'test'
        ? `${info.displayName} is a main network: register it in live mode (test mode fulfils test charges, on test networks).`
        : `${info.displayName} is a test network: register it in test mode.`,
      { param: 'chain' },
    );
  }
  if (!isAddress(parsed.data.address, { strict: false })) {
    throw new AppError('invalid_address', `“${parsed.data.address}” is not an EVM address (0x followed by 40 hexadecimal characters).`, {
      param: 'address',
    });
  }
  const address = getAddress(parsed.data.address) as Address;
  const abi = parsed.data.abi?.trim();
  const inspected = await inspectContract({ chain: chain as ChainName, address, ...(abi ? { uploadedAbi: parseUploadedAbi(abi) } : {}) });
  const serviceWallet = (await ensureMerchantWallets(getDb(), input.merchantId)).find((w) => w.family === 'evm')!.address as Address;
  await refuseTokenContract(getDb(), { inspected, serviceWallet });

  const registered = await getDb().transaction(async (tx) => {
    const actor = await authorizeMember(tx, { ...input, permission: 'contracts.manage' });
    await verifyStepUp({
      userId: input.userId,
      proof: input.stepUp ?? {},
      mode: input.mode,
      tx,
      attempt: { action: 'contract_register', merchantId: input.merchantId, mode: input.mode, ip: input.ip },
    });
    const values = {
      kind: inspected.kind,
      name: inspected.name,
      symbol: inspected.symbol,
      decimals: inspected.decimals,
      interfaces: inspected.interfaces,
      functions: inspected.functions,
      hasUploadedAbi: !!abi,
      implementationAddress: inspected.implementationAddress,
      label: label || null,
    };
    const [row] = await tx
      .insert(merchantContracts)
      .values({
        id: newId('merchantContract'),
        merchantId: input.merchantId,
        mode: input.mode,
        chain,
        address,
        createdBy: `member:${input.userId}`,
        ...values,
      })
      .onConflictDoUpdate({
        target: [merchantContracts.merchantId, merchantContracts.mode, merchantContracts.chain, merchantContracts.address],
        set: { ...values, updatedAt: new Date() },
      })
      .returning();
    await recordAudit(tx, {
      actor,
      action: 'contract.register',
      targetId: row!.id,
      mode: input.mode,
      data: { chain, address, kind: inspected.kind, functions: inspected.functions.length, uploadedAbi: !!abi },
      ip: input.ip,
    });
    return row!;
  });
  await notifyOwners({
    merchantId: input.merchantId,
    actorUserId: input.userId,
    ip: input.ip,
    subject: `contract ${address} registered for fulfilment (${input.mode} mode)`,
    text: `The contract ${address} on ${info.displayName} (${inspected.kind}${inspected.name ? `, ${inspected.name}` : ''}) was registered or refreshed on the Contracts tab (${input.mode} mode). Its fulfilment rules make your service wallet call it when a charge succeeds.`,
  });
  return registered;
}
