// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// Test fixture (lib/scanner tests), never deployed by the product: pays native coin onward in internal
/// calls, as a smart-contract wallet (Safe, ERC-4337 account) or an exchange's batch withdrawal does. A
/// scanner reading only transactions' top-level `to`/`value` sees a payment to this contract, not to the
/// recipient.
contract NativeForwarder {
    /// Forwards msg.value to `to` in one internal call.
    function forward(address payable to) external payable {
        (bool ok, ) = to.call{value: msg.value}("");
        require(ok, "forward failed");
    }

    /// Pays each recipient its amount, as a batch withdrawal does; msg.value covers the sum.
    function forwardMany(address payable[] calldata to, uint256[] calldata amounts) external payable {
        require(to.length == amounts.length, "length mismatch");
        for (uint256 i = 0; i < to.length; i++) {
            (bool ok, ) = to[i].call{value: amounts[i]}("");
            require(ok, "forward failed");
        }
    }

    /// Sends to `to` in a call that is then reverted, within a transaction that succeeds: nothing arrives.
    function forwardReverted(address payable to) external payable {
        try this.forwardThenRevert{value: msg.value}(to) {} catch {}
    }

    function forwardThenRevert(address payable to) external payable {
        (bool ok, ) = to.call{value: msg.value}("");
        require(ok, "forward failed");
        revert("undone");
    }
}
