// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.30;

/// @title Token payment fixtures - devnet stand-ins for OLAS, USDC and their balance tracker
/// @notice Written for the mech-catalogue devnet, following the interfaces of
///         ai-registry-mech 0.8.28: the MechMarketplace finds a payment type's tracker in
///         mapPaymentTypeBalanceTrackers and calls checkAndRecordDeliveryRates; the token
///         tracker (BalanceTrackerFixedPriceToken) refuses native value, keeps prepaid
///         balances in mapRequesterBalances and pulls what a request lacks with
///         transferFrom. No fees, drains or withdrawals. The ERC-20 is a minimal
///         stand-in (no OpenZeppelin in the pinned toolchain); its decimals are set per
///         deployment (18 for OLAS, 6 for USDC).

/// @dev Native value was sent to a token tracker (as the real NoDepositAllowed).
error NoDepositAllowed(uint256 amount);
/// @dev The prepaid balance plus what could be pulled does not cover `required`.
error InsufficientBalance(uint256 current, uint256 required);
/// @dev Only `expected` may call, but `sender` did.
error TokenUnauthorized(address sender, address expected);
/// @dev An ERC-20 transfer failed.
error TransferFailed(address token, address from, address to, uint256 amount);

/// @title FixtureToken - a minimal ERC-20 minted by its deployer
contract FixtureToken {
    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    string public name;
    string public symbol;
    uint8 public immutable decimals;
    address public immutable minter;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    constructor(string memory _name, string memory _symbol, uint8 _decimals) {
        name = _name;
        symbol = _symbol;
        decimals = _decimals;
        minter = msg.sender;
    }

    function mint(address to, uint256 amount) external {
        if (msg.sender != minter) revert TokenUnauthorized(msg.sender, minter);
        totalSupply += amount;
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _move(msg.sender, to, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed < amount) revert InsufficientBalance(allowed, amount);
        allowance[from][msg.sender] = allowed - amount;
        _move(from, to, amount);
        return true;
    }

    function _move(address from, address to, uint256 amount) internal {
        uint256 held = balanceOf[from];
        if (held < amount) revert InsufficientBalance(held, amount);
        balanceOf[from] = held - amount;
        balanceOf[to] += amount;
        emit Transfer(from, to, amount);
    }
}

/// @title FixtureTokenBalanceTracker - ERC-20 payments held for mechs of one payment type
contract FixtureTokenBalanceTracker {
    event Deposit(address indexed account, address indexed token, uint256 amount);
    event RequesterBalanceAdjusted(address indexed requester, uint256 deliveryRate, uint256 balance);

    address public immutable mechMarketplace;
    address public immutable token;
    mapping(address => uint256) public mapRequesterBalances;
    mapping(address => uint256) public mapMechBalances;

    constructor(address _mechMarketplace, address _token) {
        mechMarketplace = _mechMarketplace;
        token = _token;
    }

    function _pull(address from, uint256 amount) internal {
        (bool ok, bytes memory data) = token.call(
            abi.encodeWithSignature("transferFrom(address,address,uint256)", from, address(this), amount));
        if (!ok || (data.length > 0 && !abi.decode(data, (bool)))) {
            revert TransferFailed(token, from, address(this), amount);
        }
        emit Deposit(from, token, amount);
    }

    /// @notice Prepay: the caller's balance grows by `amount` pulled from it.
    function deposit(uint256 amount) external {
        mapRequesterBalances[msg.sender] += amount;
        _pull(msg.sender, amount);
    }

    /// @notice Prepay for `account`: its balance grows by `amount` pulled from the caller.
    function depositFor(address account, uint256 amount) external {
        mapRequesterBalances[account] += amount;
        _pull(msg.sender, amount);
    }

    function checkAndRecordDeliveryRates(address requester, uint256 numRequests, uint256 deliveryRate,
        bytes calldata) external payable {
        if (msg.sender != mechMarketplace) revert TokenUnauthorized(msg.sender, mechMarketplace);
        if (msg.value > 0) revert NoDepositAllowed(msg.value);
        uint256 due = numRequests * deliveryRate;
        uint256 balance = mapRequesterBalances[requester];
        if (balance < due) {
            _pull(requester, due - balance);
            balance = due;
        }
        mapRequesterBalances[requester] = balance - due;
        emit RequesterBalanceAdjusted(requester, due, balance - due);
    }

    function finalizeDeliveryRates(address mech, address[] calldata requesters, bool[] calldata deliveredRequests,
        uint256[] calldata mechDeliveryRates, uint256[] calldata requesterDeliveryRates) external {
        if (msg.sender != mechMarketplace) revert TokenUnauthorized(msg.sender, mechMarketplace);
        for (uint256 i = 0; i < requesters.length; ++i) {
            if (deliveredRequests[i]) {
                mapMechBalances[mech] += mechDeliveryRates[i];
                mapRequesterBalances[requesters[i]] += requesterDeliveryRates[i] - mechDeliveryRates[i];
            }
        }
    }

    function adjustMechRequesterBalances(address, address, uint256[] calldata, bytes calldata) external view {
        if (msg.sender != mechMarketplace) revert TokenUnauthorized(msg.sender, mechMarketplace);
    }
}
