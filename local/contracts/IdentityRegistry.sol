// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title IdentityRegistry
/// @notice A local stand-in of the ERC-8004 ("Trustless Agents") Identity Registry for the
///         anvil chain (id 8453). It keeps the ERC's function names, signatures and events
///         (register and its overloads, setAgentURI, getMetadata/setMetadata, the reserved
///         `agentWallet` key with getAgentWallet/setAgentWallet/unsetAgentWallet, Registered,
///         MetadataSet, URIUpdated) over a minimal ERC-721: ownerOf, balanceOf, tokenURI,
///         approvals and a plain transferFrom. It is not the deployed registry: no upgrades,
///         no safeTransferFrom and no onERC721Received callback on mint, and agent ids start at 1.
/// @dev    setAgentWallet checks an EIP-712 signature by the new wallet (ecrecover for an EOA,
///         ERC-1271 for a contract) over the same typed data as the Base deployment, so a
///         client that signs for the real registry works here unchanged.
contract IdentityRegistry {
    struct MetadataEntry {
        string metadataKey;
        bytes metadataValue;
    }

    string public constant name = "Local ERC-8004 Agent Identity";
    string public constant symbol = "AGENT";

    bytes32 private constant AGENT_WALLET_KEY_HASH = keccak256("agentWallet");
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    // The Base deployment's domain and struct, so signatures made for it verify here too.
    bytes32 private constant DOMAIN_NAME_HASH = keccak256("ERC8004IdentityRegistry");
    bytes32 private constant DOMAIN_VERSION_HASH = keccak256("1");
    bytes32 private constant AGENT_WALLET_SET_TYPEHASH =
        keccak256("AgentWalletSet(uint256 agentId,address newWallet,address owner,uint256 deadline)");
    /// @dev A wallet proof is short-lived: it cannot be held back and replayed much later.
    uint256 private constant MAX_DEADLINE_AHEAD = 5 minutes;
    bytes4 private constant ERC1271_MAGIC_VALUE = 0x1626ba7e;
    /// @dev Upper half of secp256k1's order: signatures with a larger s are malleable copies.
    uint256 private constant HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;

    uint256 private lastAgentId;
    mapping(uint256 agentId => address) private owners;
    mapping(address owner => uint256) private balances;
    mapping(uint256 agentId => string) private agentURIs;
    mapping(uint256 agentId => address) private agentWallets;
    mapping(uint256 agentId => mapping(string metadataKey => bytes)) private metadata;
    mapping(uint256 agentId => address) private tokenApprovals;
    mapping(address owner => mapping(address operator => bool)) private operatorApprovals;

    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId);
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);
    event Registered(uint256 indexed agentId, string agentURI, address indexed owner);
    event MetadataSet(uint256 indexed agentId, string indexed indexedMetadataKey, string metadataKey, bytes metadataValue);
    event URIUpdated(uint256 indexed agentId, string newURI, address indexed updatedBy);

    // ERC-6093 names for the ERC-721 failures, so tools decode them as they do elsewhere.
    error ERC721NonexistentToken(uint256 tokenId);
    error ERC721InvalidOwner(address owner);
    error ERC721IncorrectOwner(address sender, uint256 tokenId, address owner);
    error ERC721InvalidReceiver(address receiver);
    error NotAuthorized(address caller, uint256 agentId);
    error ReservedMetadataKey(string metadataKey);
    error ZeroWallet();
    error SignatureExpired(uint256 deadline);
    error DeadlineTooFar(uint256 deadline);
    error InvalidWalletSignature(address newWallet);

    // ---------------------------------------------------------------- registration

    /// @notice Registers an agent owned by the caller; its URI can be set later with setAgentURI.
    function register() external returns (uint256 agentId) {
        agentId = _register(msg.sender, "");
    }

    /// @notice Registers an agent owned by the caller, pointing at its registration file.
    function register(string calldata agentURI) external returns (uint256 agentId) {
        agentId = _register(msg.sender, agentURI);
    }

    /// @notice Registers an agent with extra on-chain metadata; the `agentWallet` key is refused.
    function register(string calldata agentURI, MetadataEntry[] calldata entries) external returns (uint256 agentId) {
        agentId = _register(msg.sender, agentURI);
        for (uint256 i = 0; i < entries.length; i++) {
            _storeMetadata(agentId, entries[i].metadataKey, entries[i].metadataValue);
        }
    }

    /// @notice Replaces the agent's URI; the owner, the token's approved address or an operator may.
    function setAgentURI(uint256 agentId, string calldata newURI) external {
        _requireAuthorized(agentId);
        agentURIs[agentId] = newURI;
        emit URIUpdated(agentId, newURI, msg.sender);
    }

    // ---------------------------------------------------------------- metadata and the agent wallet

    /// @notice On-chain metadata; `agentWallet` reads as the 20-byte wallet, or empty when unset.
    function getMetadata(uint256 agentId, string calldata metadataKey) external view returns (bytes memory) {
        if (keccak256(bytes(metadataKey)) == AGENT_WALLET_KEY_HASH) {
            address wallet = agentWallets[agentId];
            return wallet == address(0) ? bytes("") : abi.encodePacked(wallet);
        }
        return metadata[agentId][metadataKey];
    }

    function setMetadata(uint256 agentId, string calldata metadataKey, bytes calldata metadataValue) external {
        _requireAuthorized(agentId);
        _storeMetadata(agentId, metadataKey, metadataValue);
    }

    /// @notice Where the agent receives payments: its owner at registration, cleared on transfer.
    function getAgentWallet(uint256 agentId) external view returns (address) {
        _requireOwned(agentId);
        return agentWallets[agentId];
    }

    /// @notice Sets the agent wallet once the new wallet has signed AgentWalletSet (EIP-712) for
    ///         this agent, its current owner and a deadline at most five minutes ahead.
    function setAgentWallet(uint256 agentId, address newWallet, uint256 deadline, bytes calldata signature) external {
        if (newWallet == address(0)) revert ZeroWallet();
        if (block.timestamp > deadline) revert SignatureExpired(deadline);
        if (deadline > block.timestamp + MAX_DEADLINE_AHEAD) revert DeadlineTooFar(deadline);
        address owner = _requireAuthorized(agentId);
        bytes32 structHash = keccak256(abi.encode(AGENT_WALLET_SET_TYPEHASH, agentId, newWallet, owner, deadline));
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));
        if (!_isValidSignature(newWallet, digest, signature)) revert InvalidWalletSignature(newWallet);
        _setWallet(agentId, newWallet);
    }

    function unsetAgentWallet(uint256 agentId) external {
        _requireAuthorized(agentId);
        _setWallet(agentId, address(0));
    }

    /// @notice The EIP-712 domain separator setAgentWallet signatures are made over.
    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        // Computed on each call: cheap, and right even if the chain id ever changed (a fork).
        return keccak256(abi.encode(DOMAIN_TYPEHASH, DOMAIN_NAME_HASH, DOMAIN_VERSION_HASH, block.chainid, address(this)));
    }

    // ---------------------------------------------------------------- minimal ERC-721

    function balanceOf(address owner) external view returns (uint256) {
        if (owner == address(0)) revert ERC721InvalidOwner(address(0));
        return balances[owner];
    }

    function ownerOf(uint256 tokenId) external view returns (address) {
        return _requireOwned(tokenId);
    }

    /// @notice The agentURI, which resolves to the agent's registration file.
    function tokenURI(uint256 tokenId) external view returns (string memory) {
        _requireOwned(tokenId);
        return agentURIs[tokenId];
    }

    function getApproved(uint256 tokenId) external view returns (address) {
        _requireOwned(tokenId);
        return tokenApprovals[tokenId];
    }

    function isApprovedForAll(address owner, address operator) external view returns (bool) {
        return operatorApprovals[owner][operator];
    }

    function approve(address to, uint256 tokenId) external {
        address owner = _requireOwned(tokenId);
        if (msg.sender != owner && !operatorApprovals[owner][msg.sender]) revert NotAuthorized(msg.sender, tokenId);
        tokenApprovals[tokenId] = to;
        emit Approval(owner, to, tokenId);
    }

    function setApprovalForAll(address operator, bool approved) external {
        operatorApprovals[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    /// @notice Moves an agent; a new owner must prove its own agent wallet again, as the ERC requires.
    function transferFrom(address from, address to, uint256 tokenId) external {
        if (to == address(0)) revert ERC721InvalidReceiver(address(0));
        address owner = _requireAuthorized(tokenId);
        if (owner != from) revert ERC721IncorrectOwner(from, tokenId, owner);
        delete tokenApprovals[tokenId];
        balances[from] -= 1;
        balances[to] += 1;
        owners[tokenId] = to;
        emit Transfer(from, to, tokenId);
        if (from != to && agentWallets[tokenId] != address(0)) _setWallet(tokenId, address(0));
    }

    /// @notice ERC-165 for ERC-165 itself and ERC-721 Metadata. Not the full ERC-721 id:
    ///         safeTransferFrom is left out of this local stand-in.
    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x01ffc9a7 || interfaceId == 0x5b5e139f;
    }

    // ---------------------------------------------------------------- internals

    function _register(address owner, string memory agentURI) private returns (uint256 agentId) {
        // Ids start at 1, so 0 never names an agent.
        agentId = ++lastAgentId;
        owners[agentId] = owner;
        balances[owner] += 1;
        emit Transfer(address(0), owner, agentId);
        if (bytes(agentURI).length > 0) agentURIs[agentId] = agentURI;
        _setWallet(agentId, owner);
        emit Registered(agentId, agentURI, owner);
    }

    function _storeMetadata(uint256 agentId, string calldata metadataKey, bytes calldata metadataValue) private {
        if (keccak256(bytes(metadataKey)) == AGENT_WALLET_KEY_HASH) revert ReservedMetadataKey(metadataKey);
        metadata[agentId][metadataKey] = metadataValue;
        emit MetadataSet(agentId, metadataKey, metadataKey, metadataValue);
    }

    function _setWallet(uint256 agentId, address wallet) private {
        agentWallets[agentId] = wallet;
        emit MetadataSet(agentId, "agentWallet", "agentWallet", wallet == address(0) ? bytes("") : abi.encodePacked(wallet));
    }

    function _requireOwned(uint256 agentId) private view returns (address owner) {
        owner = owners[agentId];
        if (owner == address(0)) revert ERC721NonexistentToken(agentId);
    }

    /// @dev The ERC-721 rule for who may manage a token: its owner, its approved address, an operator.
    function _requireAuthorized(uint256 agentId) private view returns (address owner) {
        owner = _requireOwned(agentId);
        if (msg.sender != owner && msg.sender != tokenApprovals[agentId] && !operatorApprovals[owner][msg.sender]) {
            revert NotAuthorized(msg.sender, agentId);
        }
    }

    function _isValidSignature(address signer, bytes32 digest, bytes calldata signature) private view returns (bool) {
        if (signer.code.length > 0) {
            // ERC-1271: a smart-contract wallet answers for its own signatures.
            (bool ok, bytes memory answer) = signer.staticcall(abi.encodeWithSelector(ERC1271_MAGIC_VALUE, digest, signature));
            return ok && answer.length >= 32 && bytes4(answer) == ERC1271_MAGIC_VALUE;
        }
        if (signature.length != 65) return false;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (v < 27) v += 27; // some signers give the recovery id as 0/1
        if (uint256(s) > HALF_ORDER || (v != 27 && v != 28)) return false;
        address recovered = ecrecover(digest, v, r, s);
        return recovered != address(0) && recovered == signer;
    }
}
