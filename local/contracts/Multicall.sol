// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title Multicall
/// @notice The two read-batching entry points of Multicall3 that this project's clients call
///         (`tryAggregate`, which the x402 EVM facilitator uses to diagnose a failed
///         authorization, and `aggregate3`, viem's `multicall`), with Multicall3's ABI. The
///         local run puts it at Multicall3's address, where Base has the real contract, so
///         the same code reads the local chain as it reads Base. Calls only; no value is sent.
contract Multicall {
    struct Call {
        address target;
        bytes callData;
    }

    struct Call3 {
        address target;
        bool allowFailure;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    error CallFailed(uint256 index);

    function tryAggregate(bool requireSuccess, Call[] calldata calls) external returns (Result[] memory results) {
        results = new Result[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool success, bytes memory returnData) = calls[i].target.call(calls[i].callData);
            if (requireSuccess && !success) revert CallFailed(i);
            results[i] = Result(success, returnData);
        }
    }

    function aggregate3(Call3[] calldata calls) external returns (Result[] memory results) {
        results = new Result[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool success, bytes memory returnData) = calls[i].target.call(calls[i].callData);
            if (!calls[i].allowFailure && !success) revert CallFailed(i);
            results[i] = Result(success, returnData);
        }
    }
}
