// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.30;

/// @title LegacyMechAgentRegistry - devnet stand-in for the legacy mech "AI Agent Registry"
/// @notice Written for the mech-catalogue devnet. Its ABI is a subset of
///         valory-xyz/ai-registry-mech abis/0.8.25/AgentRegistry.json (checked by
///         tests/devnet/test_legacy_registry_abi.py); the deployed bytecode of that
///         registry is not published, so this contract reproduces its observable
///         behaviour: `create` by the manager, `updateHash` by the NFT owner,
///         `getHashes` returning every hash, `tokenURI` built from the LATEST hash
///         as baseURI + "f01701220" + hex(hash).

/// @dev Only the manager may call, but `sender` did.
error ManagerOnly(address sender, address manager);
/// @dev Only the owner may call, but `sender` did.
error OwnerOnly(address sender, address owner);
/// @dev Only the NFT owner of `agentId` may call, but `sender` did.
error OperatorOnly(address sender, address owner, uint256 agentId);
/// @dev The agent id does not exist.
error AgentNotFound(uint256 agentId);
/// @dev Index out of range.
error Overflow(uint256 provided, uint256 max);
/// @dev A zero address was given.
error ZeroAddress();
/// @dev A zero value (hash, empty string) was given.
error ZeroValue();
/// @dev Reentrant call.
error ReentrancyGuard();

interface IERC721TokenReceiver {
    function onERC721Received(address operator, address from, uint256 id, bytes calldata data)
        external returns (bytes4);
}

contract LegacyMechAgentRegistry {
    event Transfer(address indexed from, address indexed to, uint256 indexed id);
    event Approval(address indexed owner, address indexed spender, uint256 indexed id);
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);
    event OwnerUpdated(address indexed owner);
    event ManagerUpdated(address indexed manager);
    event BaseURIChanged(string baseURI);
    event CreateAgent(uint256 indexed agentId, bytes32 agentHash);
    event UpdateAgentHash(uint256 indexed agentId, bytes32 agentHash);

    string public constant VERSION = "1.0.0";
    // base16 multibase "f", CIDv1 0x01, dag-pb 0x70, sha2-256 0x12, 32 bytes 0x20
    string public constant CID_PREFIX = "f01701220";

    string public name;
    string public symbol;
    string public baseURI;
    address public owner;
    address public manager;
    uint256 public totalSupply;

    mapping(uint256 => bytes32[]) public mapAgentIdHashes;
    mapping(uint256 => address) internal _owners;
    mapping(address => uint256) internal _balances;
    mapping(uint256 => address) public getApproved;
    mapping(address => mapping(address => bool)) public isApprovedForAll;

    uint256 internal _locked = 1;

    constructor(string memory _name, string memory _symbol, string memory _baseURI) {
        name = _name;
        symbol = _symbol;
        baseURI = _baseURI;
        owner = msg.sender;
    }

    // ---------------------------------------------------------------- administration

    function changeOwner(address newOwner) external {
        if (msg.sender != owner) revert OwnerOnly(msg.sender, owner);
        if (newOwner == address(0)) revert ZeroAddress();
        owner = newOwner;
        emit OwnerUpdated(newOwner);
    }

    function changeManager(address newManager) external {
        if (msg.sender != owner) revert OwnerOnly(msg.sender, owner);
        if (newManager == address(0)) revert ZeroAddress();
        manager = newManager;
        emit ManagerUpdated(newManager);
    }

    function setBaseURI(string memory bURI) external {
        if (msg.sender != owner) revert OwnerOnly(msg.sender, owner);
        if (bytes(bURI).length == 0) revert ZeroValue();
        baseURI = bURI;
        emit BaseURIChanged(bURI);
    }

    // ---------------------------------------------------------------- agents and hashes

    function create(address agentOwner, bytes32 agentHash) external returns (uint256 agentId) {
        if (_locked != 1) revert ReentrancyGuard();
        _locked = 2;
        if (msg.sender != manager) revert ManagerOnly(msg.sender, manager);
        if (agentOwner == address(0)) revert ZeroAddress();
        if (agentHash == bytes32(0)) revert ZeroValue();

        agentId = totalSupply + 1;
        totalSupply = agentId;
        mapAgentIdHashes[agentId].push(agentHash);
        _mint(agentOwner, agentId);
        _checkReceiver(address(0), agentOwner, agentId, "");

        emit CreateAgent(agentId, agentHash);
        _locked = 1;
    }

    function updateHash(uint256 agentId, bytes32 agentHash) external returns (bool success) {
        address agentOwner = ownerOf(agentId);
        if (msg.sender != agentOwner) revert OperatorOnly(msg.sender, agentOwner, agentId);
        if (agentHash == bytes32(0)) revert ZeroValue();
        mapAgentIdHashes[agentId].push(agentHash);
        emit UpdateAgentHash(agentId, agentHash);
        success = true;
    }

    function getHashes(uint256 agentId) external view returns (uint256 numHashes, bytes32[] memory agentHashes) {
        if (!exists(agentId)) revert AgentNotFound(agentId);
        agentHashes = mapAgentIdHashes[agentId];
        numHashes = agentHashes.length;
    }

    function exists(uint256 unitId) public view returns (bool) {
        return unitId > 0 && unitId <= totalSupply;
    }

    function tokenByIndex(uint256 id) external view returns (uint256 unitId) {
        unitId = id + 1;
        if (unitId > totalSupply) revert Overflow(unitId, totalSupply);
    }

    function tokenURI(uint256 unitId) external view returns (string memory) {
        if (!exists(unitId)) revert AgentNotFound(unitId);
        bytes32[] storage hashes = mapAgentIdHashes[unitId];
        return string(abi.encodePacked(baseURI, CID_PREFIX, _hexOf(hashes[hashes.length - 1])));
    }

    /// @dev Lower-case base16 text of the 32 bytes (64 characters).
    function _hexOf(bytes32 value) internal pure returns (bytes memory text) {
        bytes16 digits = "0123456789abcdef";
        text = new bytes(64);
        for (uint256 i = 0; i < 32; ++i) {
            uint8 b = uint8(value[i]);
            text[2 * i] = digits[b >> 4];
            text[2 * i + 1] = digits[b & 0x0f];
        }
    }

    // ---------------------------------------------------------------- ERC-721

    function ownerOf(uint256 id) public view returns (address owner) {
        owner = _owners[id];
        require(owner != address(0), "NOT_MINTED");
    }

    function balanceOf(address owner) external view returns (uint256) {
        require(owner != address(0), "ZERO_ADDRESS");
        return _balances[owner];
    }

    function approve(address spender, uint256 id) external {
        address holder = _owners[id];
        require(msg.sender == holder || isApprovedForAll[holder][msg.sender], "NOT_AUTHORIZED");
        getApproved[id] = spender;
        emit Approval(holder, spender, id);
    }

    function setApprovalForAll(address operator, bool approved) external {
        isApprovedForAll[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function transferFrom(address from, address to, uint256 id) public {
        require(from == _owners[id], "WRONG_FROM");
        require(to != address(0), "INVALID_RECIPIENT");
        require(
            msg.sender == from || isApprovedForAll[from][msg.sender] || msg.sender == getApproved[id],
            "NOT_AUTHORIZED"
        );
        _balances[from]--;
        _balances[to]++;
        _owners[id] = to;
        delete getApproved[id];
        emit Transfer(from, to, id);
    }

    function safeTransferFrom(address from, address to, uint256 id) external {
        transferFrom(from, to, id);
        _checkReceiver(from, to, id, "");
    }

    function safeTransferFrom(address from, address to, uint256 id, bytes calldata data) external {
        transferFrom(from, to, id);
        _checkReceiver(from, to, id, data);
    }

    function supportsInterface(bytes4 interfaceId) external view returns (bool) {
        return interfaceId == 0x01ffc9a7 // ERC165
            || interfaceId == 0x80ac58cd // ERC721
            || interfaceId == 0x5b5e139f; // ERC721Metadata
    }

    function _mint(address to, uint256 id) internal {
        _balances[to]++;
        _owners[id] = to;
        emit Transfer(address(0), to, id);
    }

    function _checkReceiver(address from, address to, uint256 id, bytes memory data) internal {
        if (to.code.length == 0) return;
        bytes4 answer = IERC721TokenReceiver(to).onERC721Received(msg.sender, from, id, data);
        require(answer == IERC721TokenReceiver.onERC721Received.selector, "UNSAFE_RECIPIENT");
    }
}
