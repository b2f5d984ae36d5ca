// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.30;

/// @title Subscription payment fixtures - devnet stand-ins for a Nevermined plan and its tracker
/// @notice Written for the mech-catalogue devnet, following the interfaces of
///         ai-registry-mech's BalanceTrackerNvmSubscriptionNative (contracts/mechs/nevermined):
///         the tracker names its plan as subscriptionNFT() (an ERC-1155) and
///         subscriptionTokenId(); a request carries no value (NoDepositAllowed) and burns
///         `price - prepaid` credits of the requester (InsufficientBalance when it holds
///         fewer); deposits revert. The credits token is a minimal ERC-1155 balance book
///         (no transfers or receivers' hooks): its deployer mints, the tracker burns.
///         No fees, drains, credit-to-token conversion or mech payouts.

/// @dev Native value or a deposit was sent to a subscription tracker.
error NoDepositAllowed(uint256 amount);
/// @dev The credits held plus the prepaid balance do not cover `required`.
error InsufficientBalance(uint256 current, uint256 required);
/// @dev Only `expected` may call, but `sender` did.
error SubscriptionUnauthorized(address sender, address expected);

/// @title FixtureSubscriptionCredits - ERC-1155 credit balances of subscription plans
contract FixtureSubscriptionCredits {
    event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id,
        uint256 value);

    address public immutable minter;
    address public burner;
    mapping(uint256 => mapping(address => uint256)) private _balances;

    constructor() {
        minter = msg.sender;
    }

    function balanceOf(address account, uint256 tokenId) external view returns (uint256) {
        return _balances[tokenId][account];
    }

    function setBurner(address _burner) external {
        if (msg.sender != minter) revert SubscriptionUnauthorized(msg.sender, minter);
        burner = _burner;
    }

    function mint(address account, uint256 tokenId, uint256 amount) external {
        if (msg.sender != minter) revert SubscriptionUnauthorized(msg.sender, minter);
        _balances[tokenId][account] += amount;
        emit TransferSingle(msg.sender, address(0), account, tokenId, amount);
    }

    function burn(address account, uint256 tokenId, uint256 amount) external {
        if (msg.sender != burner) revert SubscriptionUnauthorized(msg.sender, burner);
        uint256 held = _balances[tokenId][account];
        if (held < amount) revert InsufficientBalance(held, amount);
        _balances[tokenId][account] = held - amount;
        emit TransferSingle(msg.sender, account, address(0), tokenId, amount);
    }
}

interface ICredits {
    function balanceOf(address account, uint256 tokenId) external view returns (uint256);
    function burn(address account, uint256 tokenId, uint256 amount) external;
}

/// @title FixtureNvmBalanceTracker - requests paid with credits of one subscription plan
contract FixtureNvmBalanceTracker {
    event RequesterCreditsRedeemed(address indexed account, uint256 amount);
    event RequesterBalanceAdjusted(address indexed requester, uint256 deliveryRate, uint256 balance);

    address public immutable mechMarketplace;
    address public immutable subscriptionNFT;
    uint256 public immutable subscriptionTokenId;
    mapping(address => uint256) public mapRequesterBalances;
    mapping(address => uint256) public mapMechBalances;

    constructor(address _mechMarketplace, address _subscriptionNFT, uint256 _subscriptionTokenId) {
        mechMarketplace = _mechMarketplace;
        subscriptionNFT = _subscriptionNFT;
        subscriptionTokenId = _subscriptionTokenId;
    }

    function depositFor(address) external payable {
        revert NoDepositAllowed(msg.value);
    }

    function checkAndRecordDeliveryRates(address requester, uint256 numRequests, uint256 deliveryRate,
        bytes calldata) external payable {
        if (msg.sender != mechMarketplace) revert SubscriptionUnauthorized(msg.sender, mechMarketplace);
        if (msg.value > 0) revert NoDepositAllowed(msg.value);
        uint256 due = numRequests * deliveryRate;
        uint256 balance = mapRequesterBalances[requester];
        uint256 credits = ICredits(subscriptionNFT).balanceOf(requester, subscriptionTokenId);
        if (balance + credits < due) revert InsufficientBalance(balance + credits, due);
        if (balance >= due) {
            balance -= due;
        } else {
            uint256 burnt = due - balance;
            balance = 0;
            ICredits(subscriptionNFT).burn(requester, subscriptionTokenId, burnt);
            emit RequesterCreditsRedeemed(requester, burnt);
        }
        mapRequesterBalances[requester] = balance;
        emit RequesterBalanceAdjusted(requester, due, balance);
    }

    function finalizeDeliveryRates(address mech, address[] calldata requesters, bool[] calldata deliveredRequests,
        uint256[] calldata mechDeliveryRates, uint256[] calldata) external {
        if (msg.sender != mechMarketplace) revert SubscriptionUnauthorized(msg.sender, mechMarketplace);
        for (uint256 i = 0; i < requesters.length; ++i) {
            if (deliveredRequests[i]) {
                mapMechBalances[mech] += mechDeliveryRates[i];
            }
        }
    }

    function adjustMechRequesterBalances(address, address, uint256[] calldata, bytes calldata) external view {
        if (msg.sender != mechMarketplace) revert SubscriptionUnauthorized(msg.sender, mechMarketplace);
    }
}
