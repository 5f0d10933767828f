// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";

/// A demo ERC-721 for the Contracts tab's tests (lib/contracts/): one badge per `safeMint(to)`, token ids
/// counted from 1, minted by holders of MINTER_ROLE. Placed with anvil_setCode and initialized once, like
/// GameItems.
contract GameBadges is ERC721, AccessControl {
    bytes32 public constant MINTER_ROLE = keccak256("MINTER_ROLE");
    uint256 public nextTokenId;
    bool private initialized;

    constructor() ERC721("", "") {}

    // Constants, not constructor-set storage: the code is placed without running a constructor.
    function name() public pure override returns (string memory) {
        return "Game badges";
    }

    function symbol() public pure override returns (string memory) {
        return "BADGE";
    }

    function initialize(address admin) external {
        require(!initialized, "already initialized");
        initialized = true;
        nextTokenId = 1;
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
    }

    function safeMint(address to) external onlyRole(MINTER_ROLE) returns (uint256 tokenId) {
        tokenId = nextTokenId++;
        _safeMint(to, tokenId);
    }

    function supportsInterface(bytes4 interfaceId) public view override(ERC721, AccessControl) returns (bool) {
        return super.supportsInterface(interfaceId);
    }
}
