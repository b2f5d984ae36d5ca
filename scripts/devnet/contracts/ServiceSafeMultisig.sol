// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.30;

/// @title ServiceSafeMultisig - devnet multisig implementation for ServiceRegistry.deploy
/// @notice Written for the mech-catalogue devnet, in the role of autonolas-registries'
///         GnosisSafeMultisig (whose bytecode is not in the installed wheels): the
///         ServiceRegistry calls `create(agentInstances, threshold, data)` when a service
///         is deployed, and this contract creates a Gnosis Safe 1.3.0 proxy of the given
///         singleton through the real GnosisSafeProxyFactory, owned by the agent instances.
///         `data` is ignored (no fallback handler, no payment).

interface IGnosisSafeProxyFactory {
    function createProxyWithNonce(address singleton, bytes memory initializer, uint256 saltNonce)
        external returns (address proxy);
}

contract ServiceSafeMultisig {
    address public immutable gnosisSafe;
    address public immutable gnosisSafeProxyFactory;
    uint256 public nonce;

    constructor(address _gnosisSafe, address _gnosisSafeProxyFactory) {
        gnosisSafe = _gnosisSafe;
        gnosisSafeProxyFactory = _gnosisSafeProxyFactory;
    }

    function create(address[] memory owners, uint256 threshold, bytes memory)
        external returns (address multisig)
    {
        bytes memory initializer = abi.encodeWithSignature(
            "setup(address[],uint256,address,bytes,address,address,uint256,address)",
            owners, threshold, address(0), "", address(0), address(0), uint256(0), address(0)
        );
        nonce++;
        multisig = IGnosisSafeProxyFactory(gnosisSafeProxyFactory).createProxyWithNonce(
            gnosisSafe, initializer, nonce
        );
    }
}
