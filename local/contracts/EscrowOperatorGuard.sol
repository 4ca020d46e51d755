// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @dev base/commerce-payments' AuthCaptureEscrow.PaymentInfo (v1.0), field for field: the same ABI.
struct PaymentInfo {
    address operator;
    address payer;
    address receiver;
    address token;
    uint120 maxAmount;
    uint48 preApprovalExpiry;
    uint48 authorizationExpiry;
    uint48 refundExpiry;
    uint16 minFeeBps;
    uint16 maxFeeBps;
    address feeReceiver;
    uint256 salt;
}

interface IAuthCaptureEscrow {
    function authorize(PaymentInfo calldata paymentInfo, uint256 amount, address tokenCollector, bytes calldata collectorData)
        external;
}

interface IERC3009Token {
    function balanceOf(address account) external view returns (uint256);
    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool);
}

/// @title EscrowOperatorGuard
///
/// @notice The code an x402 `auth-capture` escrow operator's own account delegates to (EIP-7702), so
///         that its `authorize` reaches the escrow only while the payer still holds the amount and
///         its ERC-3009 authorization is unused. The escrow writes the payment's state and its event
///         before its collector pulls the tokens, so an authorize whose payer moved its funds (or
///         cancelled the authorization) in a transaction mined first reverts only at the token's
///         transfer, after about 117,000 gas: more than the payer's own transfer costs. Checked here
///         first, the same revert costs the operator about 40,000.
///
/// @dev The operator sends the call to itself (`msg.sender == address(this)`); nobody else can make
///      its account authorize anything. Capture, void and refund go to the escrow directly, as before.
contract EscrowOperatorGuard {
    /// @notice Someone other than the operator's own account called it.
    error OnlySelf();
    /// @notice The payer holds less than the escrow would pull.
    error PayerShort(uint256 balance, uint256 needed);
    /// @notice The payer's ERC-3009 authorization was used or cancelled.
    error AuthorizationUsed();

    /// @notice The escrow's `authorize`, made only when it can collect: the payer holds
    ///         `paymentInfo.maxAmount` (what the ERC-3009 collector pulls) and `nonce` (the
    ///         authorization's, the payment's payer-agnostic hash) is unused.
    function authorize(
        address escrow,
        PaymentInfo calldata paymentInfo,
        uint256 amount,
        address tokenCollector,
        bytes calldata collectorData,
        bytes32 nonce
    ) external {
        if (msg.sender != address(this)) revert OnlySelf();
        IERC3009Token token = IERC3009Token(paymentInfo.token);
        uint256 balance = token.balanceOf(paymentInfo.payer);
        if (balance < paymentInfo.maxAmount) revert PayerShort(balance, paymentInfo.maxAmount);
        if (token.authorizationState(paymentInfo.payer, nonce)) revert AuthorizationUsed();
        IAuthCaptureEscrow(escrow).authorize(paymentInfo, amount, tokenCollector, collectorData);
    }

    /// @notice The operator's account still takes ETH for its gas.
    receive() external payable {}
}
