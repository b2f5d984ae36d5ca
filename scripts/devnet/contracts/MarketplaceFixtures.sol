// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.30;

/// @title Mech marketplace fixtures - devnet stand-ins for the contracts around MechMarketplace
/// @notice Written for the mech-catalogue devnet. The real MechMarketplace (bytecode from
///         the open-autonomy wheel) is deployed as is; no PyPI package ships its Karma,
///         mech factory, mech or balance tracker, so these minimal contracts implement the
///         interfaces it calls (ai-registry-mech 0.8.28 IKarma, IMech, IBalanceTracker and
///         the factory's createMech) plus the public views a reader needs
///         (maxDeliveryRate, paymentType, serviceId, numTotalRequests, numTotalDeliveries,
///         mapMechKarma). Native and fixed-price token mechs (the token tracker and ERC-20s are
///         in TokenPayments.sol); off-chain requests settled with the requester's signature
///         (deliverMarketplaceWithSignatures) from a native prepaid balance; no subscriptions
///         or timeouts.

/// @dev Only `expected` may call, but `sender` did.
error Unauthorized(address sender, address expected);
/// @dev The payment `sent` does not cover `due`.
error Underpaid(uint256 sent, uint256 due);
/// @dev A zero value was given.
error ZeroValue();

/// @dev The part of ServiceRegistry the mech reads.
interface IServiceRegistryView {
    function mapServices(uint256 serviceId) external view returns (uint96 securityDeposit, address multisig,
        bytes32 configHash, uint32 threshold, uint32 maxNumAgentInstances, uint32 numAgentInstances, uint8 state);
}

/// @dev The part of MechMarketplace the mech calls.
interface IMarketplaceDeliver {
    function deliverMarketplace(bytes32[] calldata requestIds, uint256[] calldata deliveryRates)
        external returns (bool[] memory deliveredRequests);
    function deliverMarketplaceWithSignatures(address requester, DeliverWithSignature[] calldata deliverWithSignatures,
        uint256[] calldata deliveryRates, bytes calldata paymentData) external;
    function getRequestId(address mech, address requester, bytes memory data, uint256 deliveryRate,
        bytes32 paymentType, uint256 nonce) external view returns (bytes32);
    function mapNonces(address requester) external view returns (uint256);
}

/// @dev ai-registry-mech's DeliverWithSignature: an off-chain request settled on chain.
struct DeliverWithSignature {
    bytes requestData;
    bytes signature;
    bytes deliveryData;
}

/// @title FixtureKarma - mech karma changed by enabled marketplaces only
contract FixtureKarma {
    address public owner;
    mapping(address => bool) public mapMechMarketplaces;
    mapping(address => int256) public mapMechKarma;
    mapping(address => mapping(address => int256)) public mapRequesterMechKarma;

    constructor() {
        owner = msg.sender;
    }

    function setMechMarketplaceStatuses(address[] calldata mechMarketplaces, bool[] calldata statuses) external {
        if (msg.sender != owner) revert Unauthorized(msg.sender, owner);
        for (uint256 i = 0; i < mechMarketplaces.length; ++i) {
            mapMechMarketplaces[mechMarketplaces[i]] = statuses[i];
        }
    }

    function changeMechKarma(address mech, int256 karmaChange) external {
        if (!mapMechMarketplaces[msg.sender]) revert Unauthorized(msg.sender, address(0));
        mapMechKarma[mech] += karmaChange;
    }

    function changeRequesterMechKarma(address requester, address mech, int256 karmaChange) external {
        if (!mapMechMarketplaces[msg.sender]) revert Unauthorized(msg.sender, address(0));
        mapRequesterMechKarma[requester][mech] += karmaChange;
    }
}

/// @title FixtureBalanceTracker - native payments held for mechs
contract FixtureBalanceTracker {
    address public immutable mechMarketplace;
    mapping(address => uint256) public mapRequesterBalances;
    mapping(address => uint256) public mapMechBalances;

    constructor(address _mechMarketplace) {
        mechMarketplace = _mechMarketplace;
    }

    function checkAndRecordDeliveryRates(address requester, uint256 numRequests, uint256 deliveryRate,
        bytes calldata) external payable {
        if (msg.sender != mechMarketplace) revert Unauthorized(msg.sender, mechMarketplace);
        uint256 due = numRequests * deliveryRate;
        uint256 balance = mapRequesterBalances[requester] + msg.value;
        if (balance < due) revert Underpaid(balance, due);
        mapRequesterBalances[requester] = balance - due;
    }

    function finalizeDeliveryRates(address mech, address[] calldata requesters, bool[] calldata deliveredRequests,
        uint256[] calldata mechDeliveryRates, uint256[] calldata requesterDeliveryRates) external {
        if (msg.sender != mechMarketplace) revert Unauthorized(msg.sender, mechMarketplace);
        for (uint256 i = 0; i < requesters.length; ++i) {
            if (deliveredRequests[i]) {
                mapMechBalances[mech] += mechDeliveryRates[i];
                mapRequesterBalances[requesters[i]] += requesterDeliveryRates[i] - mechDeliveryRates[i];
            }
        }
    }

    /// @dev Prepay for `requester` (BalanceTrackerFixedPriceNative.depositFor).
    function depositFor(address requester) external payable {
        if (msg.value == 0) revert ZeroValue();
        mapRequesterBalances[requester] += msg.value;
    }

    /// @dev A plain transfer prepays for the sender, as the real native tracker's receive().
    receive() external payable {
        mapRequesterBalances[msg.sender] += msg.value;
    }

    /// @dev Off-chain requests delivered with signatures are paid from the prepaid balance.
    function adjustMechRequesterBalances(address mech, address requester, uint256[] calldata deliveryRates,
        bytes calldata) external {
        if (msg.sender != mechMarketplace) revert Unauthorized(msg.sender, mechMarketplace);
        uint256 due;
        for (uint256 i = 0; i < deliveryRates.length; ++i) {
            due += deliveryRates[i];
        }
        uint256 balance = mapRequesterBalances[requester];
        if (balance < due) revert Underpaid(balance, due);
        mapRequesterBalances[requester] = balance - due;
        mapMechBalances[mech] += due;
    }
}

/// @title FixtureMech - a fixed-price mech of one service, of the payment type its factory gives
/// @notice PAYMENT_TYPE is one of ai-registry-mech's MechFixedPriceNative (native),
///         MechFixedPriceToken (OLAS) or MechFixedPriceTokenUSDC constants.
contract FixtureMech {
    bytes32 public immutable PAYMENT_TYPE;

    // The events of the real OlasMech (ai-registry-mech), which mech-interact's MechMM ABI filters
    event Request(address indexed mech, bytes32 requestId, bytes data);
    event Deliver(address indexed mech, address indexed mechServiceMultisig, bytes32 requestId, uint256 deliveryRate, bytes data);
    event MaxDeliveryRateUpdated(uint256 maxDeliveryRate);

    address public immutable mechMarketplace;
    address public immutable serviceRegistry;
    uint256 public immutable serviceId;
    uint256 public maxDeliveryRate;
    uint256 public numTotalRequests;
    uint256 public numTotalDeliveries;
    uint256 public numUndeliveredRequests;
    mapping(bytes32 => bytes) public mapRequestData;

    constructor(address _mechMarketplace, address _serviceRegistry, uint256 _serviceId, uint256 _maxDeliveryRate,
        bytes32 _paymentType) {
        if (_maxDeliveryRate == 0) revert ZeroValue();
        PAYMENT_TYPE = _paymentType;
        mechMarketplace = _mechMarketplace;
        serviceRegistry = _serviceRegistry;
        serviceId = _serviceId;
        maxDeliveryRate = _maxDeliveryRate;
    }

    function tokenId() external view returns (uint256) {
        return serviceId;
    }

    function paymentType() external view returns (bytes32) {
        return PAYMENT_TYPE;
    }

    function getOperator() public view returns (address multisig) {
        (, multisig, , , , , ) = IServiceRegistryView(serviceRegistry).mapServices(serviceId);
    }

    function isOperator(address multisig) external view returns (bool) {
        return multisig == getOperator();
    }

    function changeMaxDeliveryRate(uint256 newMaxDeliveryRate) external {
        address operator = getOperator();
        if (msg.sender != operator) revert Unauthorized(msg.sender, operator);
        if (newMaxDeliveryRate == 0) revert ZeroValue();
        maxDeliveryRate = newMaxDeliveryRate;
        emit MaxDeliveryRateUpdated(newMaxDeliveryRate);
    }

    function requestFromMarketplace(bytes32[] calldata requestIds, bytes[] calldata datas) external {
        if (msg.sender != mechMarketplace) revert Unauthorized(msg.sender, mechMarketplace);
        for (uint256 i = 0; i < requestIds.length; ++i) {
            mapRequestData[requestIds[i]] = datas[i];
            emit Request(address(this), requestIds[i], datas[i]);
        }
        numTotalRequests += requestIds.length;
        numUndeliveredRequests += requestIds.length;
    }

    function updateNumRequests(uint256 numRequests) external {
        if (msg.sender != mechMarketplace) revert Unauthorized(msg.sender, mechMarketplace);
        numTotalRequests += numRequests;
    }

    function deliverToMarketplace(bytes32[] calldata requestIds, bytes[] calldata datas)
        external returns (bool[] memory deliveredRequests) {
        address operator = getOperator();
        if (msg.sender != operator) revert Unauthorized(msg.sender, operator);
        uint256[] memory rates = new uint256[](requestIds.length);
        for (uint256 i = 0; i < requestIds.length; ++i) {
            rates[i] = maxDeliveryRate;
        }
        deliveredRequests = IMarketplaceDeliver(mechMarketplace).deliverMarketplace(requestIds, rates);
        for (uint256 i = 0; i < requestIds.length; ++i) {
            if (deliveredRequests[i]) {
                numTotalDeliveries += 1;
                // a request of another (priority) mech, delivered after its response
                // timeout, was never counted here as undelivered
                if (mapRequestData[requestIds[i]].length > 0) {
                    numUndeliveredRequests -= 1;
                }
                emit Deliver(address(this), msg.sender, requestIds[i], rates[i], datas[i]);
            }
        }
    }

    /// @dev Settle off-chain requests: the marketplace checks each requester signature over
    ///      getRequestId(this, requester, requestData, maxDeliveryRate, PAYMENT_TYPE, nonce) and
    ///      charges the requester's prepaid balance (ai-registry-mech OlasMech's function).
    function deliverMarketplaceWithSignatures(address requester, DeliverWithSignature[] calldata deliverWithSignatures,
        bytes calldata paymentData) external {
        address operator = getOperator();
        if (msg.sender != operator) revert Unauthorized(msg.sender, operator);
        uint256 count = deliverWithSignatures.length;
        uint256[] memory rates = new uint256[](count);
        bytes32[] memory requestIds = new bytes32[](count);
        uint256 nonce = IMarketplaceDeliver(mechMarketplace).mapNonces(requester);
        for (uint256 i = 0; i < count; ++i) {
            rates[i] = maxDeliveryRate;
            requestIds[i] = IMarketplaceDeliver(mechMarketplace).getRequestId(address(this), requester,
                deliverWithSignatures[i].requestData, rates[i], PAYMENT_TYPE, nonce + i);
        }
        IMarketplaceDeliver(mechMarketplace).deliverMarketplaceWithSignatures(requester, deliverWithSignatures,
            rates, paymentData);
        numTotalDeliveries += count;
        for (uint256 i = 0; i < count; ++i) {
            emit Deliver(address(this), msg.sender, requestIds[i], rates[i], deliverWithSignatures[i].deliveryData);
        }
    }
}

/// @title FixtureMechFactory - creates FixtureMechs for MechMarketplace.create
/// @notice payload = abi.encode(uint256 maxDeliveryRate), as MechFactoryFixedPriceNative and
///         MechFactoryFixedPriceToken; one factory per payment type, as on the real chains.
contract FixtureMechFactory {
    event CreateFixedPriceMech(address indexed mech, uint256 indexed serviceId, uint256 maxDeliveryRate);

    address public immutable mechMarketplace;
    bytes32 public immutable paymentType;

    constructor(address _mechMarketplace, bytes32 _paymentType) {
        mechMarketplace = _mechMarketplace;
        paymentType = _paymentType;
    }

    function createMech(address serviceRegistry, uint256 serviceId, bytes memory payload)
        external returns (address mech) {
        if (msg.sender != mechMarketplace) revert Unauthorized(msg.sender, mechMarketplace);
        uint256 rate = abi.decode(payload, (uint256));
        mech = address(new FixtureMech(mechMarketplace, serviceRegistry, serviceId, rate, paymentType));
        emit CreateFixedPriceMech(mech, serviceId, rate);
    }
}

/// @title FixtureLegacyMech - a legacy fixed-price mech of one legacy registry agent
/// @notice The views the catalogue reads of a legacy AgentMech: tokenId() and price().
contract FixtureLegacyMech {
    event PriceUpdated(uint256 price);

    address public immutable token;
    uint256 public immutable tokenId;
    uint256 public price;

    constructor(address _token, uint256 _tokenId, uint256 _price) {
        token = _token;
        tokenId = _tokenId;
        price = _price;
    }

    function setPrice(uint256 newPrice) external {
        (bool ok, bytes memory data) = token.staticcall(abi.encodeWithSignature("ownerOf(uint256)", tokenId));
        address holder = ok && data.length == 32 ? abi.decode(data, (address)) : address(0);
        if (msg.sender != holder) revert Unauthorized(msg.sender, holder);
        price = newPrice;
        emit PriceUpdated(newPrice);
    }
}

/// @title FixtureLegacyMechFactory - emits the legacy AgentFactory's CreateMech for mechs of
///        agents that already exist in the legacy registry (the devnet's registry manager
///        creates the agents; this factory only deploys their mechs)
contract FixtureLegacyMechFactory {
    event CreateMech(address indexed mech, uint256 indexed agentId, uint256 indexed price);

    address public immutable agentRegistry;

    constructor(address _agentRegistry) {
        agentRegistry = _agentRegistry;
    }

    function createMech(uint256 agentId, uint256 price) external returns (address mech) {
        mech = address(new FixtureLegacyMech(agentRegistry, agentId, price));
        emit CreateMech(mech, agentId, price);
    }
}
