/** The deny list pinned to the selectors the standards publish (a typo in a signature would change its hash). */
import { describe, expect, it } from 'vitest';
import { parseAbiItem, type AbiFunction } from 'viem';
import { TOKEN_MOVING_SELECTORS, tokenMovingFunction } from './token-moving-selectors';

describe('token-moving selectors', () => {
  it('holds the published selectors of ERC-20, EIP-2612, ERC-721, ERC-1155, ERC-1363 and EIP-3009 transfers and approvals', () => {
    const published = {
      '0x095ea7b3': 'approve(address,uint256)',
      '0xa9059cbb': 'transfer(address,uint256)',
      '0x23b872dd': 'transferFrom(address,address,uint256)',
      '0x39509351': 'increaseAllowance(address,uint256)',
      '0xd505accf': 'permit(address,address,uint256,uint256,uint8,bytes32,bytes32)',
      '0x8fcbaf0c': 'permit(address,address,uint256,uint256,bool,uint8,bytes32,bytes32)',
      '0xa22cb465': 'setApprovalForAll(address,bool)',
      '0x42842e0e': 'safeTransferFrom(address,address,uint256)',
      '0xb88d4fde': 'safeTransferFrom(address,address,uint256,bytes)',
      '0xf242432a': 'safeTransferFrom(address,address,uint256,uint256,bytes)',
      '0x2eb2c2d6': 'safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)',
      '0x4000aea0': 'transferAndCall(address,uint256,bytes)',
      '0xe3ee160e': 'transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)',
    };
    for (const [selector, signature] of Object.entries(published))
      expect(TOKEN_MOVING_SELECTORS.get(selector as `0x${string}`)).toBe(signature);
  });

  it('matches by selector, not by name: a mint is allowed, approve under another name is not', () => {
    const fn = (text: string) => parseAbiItem(`function ${text}`) as AbiFunction;
    expect(tokenMovingFunction(fn('mint(address to, uint256 id, uint256 amount)'))).toBeUndefined();
    expect(tokenMovingFunction(fn('sign_szabo_bytecode(bytes16 a, uint128 b)'))).toBe('approve(address,uint256)');
  });
});
