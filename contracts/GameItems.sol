// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";

/// The demo game-items contract of the Contracts tab (lib/contracts/): an ERC-1155 whose items are minted by
/// holders of MINTER_ROLE, such as a merchant's Chargeport service wallet. Like DemoToken it has no
/// constructor logic, so the launcher can place its runtime code at a fixed address (anvil_setCode) and
/// then initialize it once; the initializer becomes the admin who grants MINTER_ROLE.
contract GameItems is ERC1155, AccessControl {
    bytes32 public constant MINTER_ROLE = keccak256("MINTER_ROLE");
    string public name;
    string public symbol;
    bool private initialized;

    constructor() ERC1155("") {}

    function initialize(string calldata name_, string calldata symbol_, string calldata uri_, address admin) external {
        require(!initialized, "already initialized");
        initialized = true;
        name = name_;
        symbol = symbol_;
        _setURI(uri_);
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
    }

    function mint(address to, uint256 id, uint256 amount) external onlyRole(MINTER_ROLE) {
        _mint(to, id, amount, "");
    }

    function supportsInterface(bytes4 interfaceId) public view override(ERC1155, AccessControl) returns (bool) {
        return super.supportsInterface(interfaceId);
    }
}
