# Copyright 2026 mech-catalogue contributors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""Start anvil (the EVM node from @foundry-rs/anvil) on a free loopback port."""

from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from eth_account import Account
from web3 import Web3

from scripts.devnet.processes import free_port, spawn, wait_until
from scripts.toolchain import tool_path

HOST = "127.0.0.1"
DEFAULT_CHAIN_ID = 31337
# anvil's (and hardhat's) well-known default test mnemonic: keys are public, devnet only.
MNEMONIC = "test test test test test test test test test test test junk"
NUM_ACCOUNTS = 10
# 10_000 ETH each, anvil's default
ACCOUNT_BALANCE_ETH = 10_000


@dataclass(frozen=True)
class DevAccount:
    """A funded, unlocked anvil account (BIP-44 path m/44'/60'/0'/0/<index>)."""

    index: int
    address: str
    private_key: str


def derive_account(index: int) -> DevAccount:
    """Derive account ``index`` of :data:`MNEMONIC` (path m/44'/60'/0'/0/<index>).

    :param index: the BIP-44 address index; 0..9 are anvil's funded accounts.
    :return: the account with its private key (0x hex).
    """
    Account.enable_unaudited_hdwallet_features()
    path = f"m/44'/60'/0'/0/{index}"
    acct = Account.from_mnemonic(  # pylint: disable=no-value-for-parameter
        MNEMONIC, account_path=path
    )
    return DevAccount(index, acct.address, "0x" + bytes(acct.key).hex())


def dev_accounts(count: int = NUM_ACCOUNTS) -> List[DevAccount]:
    """Derive the anvil accounts from :data:`MNEMONIC`.

    :param count: how many accounts.
    :return: accounts 0..count-1, same as anvil prints.
    """
    return [derive_account(index) for index in range(count)]


@dataclass(frozen=True)
class AnvilProcess:
    """A running anvil."""

    pid: int
    port: int
    rpc_url: str
    chain_id: int
    log_path: Path


def anvil_command(port: int, chain_id: int = DEFAULT_CHAIN_ID) -> List[str]:
    """The anvil command line of the devnet (loopback, deterministic funded accounts).

    :param port: the TCP port on :data:`HOST`.
    :param chain_id: the chain id anvil reports.
    :return: argv, starting with the installed anvil (``MissingTool`` when absent).
    """
    return [
        str(tool_path("anvil")),
        "--host",
        HOST,
        "--port",
        str(port),
        "--chain-id",
        str(chain_id),
        "--mnemonic",
        MNEMONIC,
        "--accounts",
        str(NUM_ACCOUNTS),
        "--balance",
        str(ACCOUNT_BALANCE_ETH),
        "--silent",
    ]


def start_anvil(
    state_dir: Path,
    chain_id: int = DEFAULT_CHAIN_ID,
    timeout: float = 30.0,
    port: Optional[int] = None,
    log_name: str = "anvil.log",
) -> AnvilProcess:
    """Start anvil detached on ``127.0.0.1`` and wait for its JSON-RPC.

    Blocks are mined on every transaction (automine), but asynchronously: anvil answers
    ``eth_sendRawTransaction`` before the block exists, so wait for the receipt before
    reading what a transaction changed.

    :param state_dir: folder for the log.
    :param chain_id: the chain id anvil reports.
    :param timeout: seconds to wait for the RPC.
    :param port: the port; default a free one (give the old port to restart in place).
    :param log_name: the log file name in ``state_dir``.
    :return: the process description. A missing anvil raises
        ``scripts.toolchain.MissingTool``; an anvil that does not answer in time raises
        ``scripts.devnet.processes.ProcessError``.
    """
    port = port or free_port(HOST)
    log_path = state_dir / log_name
    pid = spawn(anvil_command(port, chain_id), log_path)
    rpc_url = f"http://{HOST}:{port}"
    w3 = Web3(Web3.HTTPProvider(rpc_url, request_kwargs={"timeout": 2}))
    wait_until(lambda: w3.eth.chain_id == chain_id, timeout, "anvil", pid, log_path)
    return AnvilProcess(
        pid=pid, port=port, rpc_url=rpc_url, chain_id=chain_id, log_path=log_path
    )
