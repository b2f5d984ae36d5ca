// Copyright 2026 mech-catalogue contributors
// SPDX-License-Identifier: Apache-2.0
//
// An MCP client of another ecosystem calling our server's tools as tasks: the
// TypeScript SDK's Client with the official Tasks package (@modelcontextprotocol/client,
// @modelcontextprotocol/ext-tasks; versions pinned by tests/devnet/test_mcp_tasks.py).
// Usage: node tasks_client.mjs SCENARIO SERVER_JSON TOOL ARGUMENTS_JSON
//   SCENARIO: "complete" (call as a task, wait for the outcome), "cancel" (cancel once
//   the task's status says the request was sent), "handoff" (create the task, leave; a second client
//   connection reads its result by id); SERVER_JSON: {"command", "args", "env", "cwd"}
//   for stdio or {"url"} for Streamable HTTP.
// Prints one JSON document on stdout: what the client saw.
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createTaskSessionFromClient } from "@modelcontextprotocol/ext-tasks/client";

const [scenario, serverJson, tool, argumentsJson] = process.argv.slice(2);
const server = JSON.parse(serverJson);
const toolArguments = JSON.parse(argumentsJson);

async function connect() {
  const client = new Client({ name: "tasks-test-client", version: "1.0.0" });
  const transport = server.url
    ? new StreamableHTTPClientTransport(new URL(server.url))
    : new StdioClientTransport(server);
  await client.connect(transport);
  return client;
}

function view(task) {
  return task && { taskId: task.taskId, status: task.status, statusMessage: task.statusMessage };
}

async function main() {
  const client = await connect();
  const seen = { protocol: client.getNegotiatedProtocolVersion?.() ?? null };
  seen.capabilities = client.getServerCapabilities()?.tasks ?? null;
  const listed = await client.listTools();
  seen.taskSupport = listed.tools.find((t) => t.name === tool)?.execution?.taskSupport ?? null;
  const session = createTaskSessionFromClient(client, { endpointId: "tasks-test" });
  const execution = await session.callTool(tool, toolArguments, {
    task: { preference: "require", retentionMs: 600000 },
    requestTimeoutMs: 120000,
  });
  seen.kind = execution.kind;
  seen.taskId = execution.handle?.taskId ?? null;
  seen.updates = [];
  if (scenario === "handoff") {
    await execution.detach();
    await session.close();
    await client.close();
    const second = await connect();
    const again = createTaskSessionFromClient(second, { endpointId: "tasks-test" });
    const outcome = await again.task(seen.taskId).result();
    seen.outcome = { status: outcome.status, result: outcome.result ?? null };
    await again.close();
    await second.close();
    return seen;
  }
  let cancelled = false;
  const settlement = await execution.settle({
    onEvent: async (event) => {
      if (event.type !== "task") return;
      seen.updates.push(view(event.task));
      const waiting = (event.task.statusMessage ?? "").includes("to deliver request");
      if (scenario === "cancel" && waiting && !cancelled) {
        cancelled = true;
        await execution.cancel();
      }
    },
  });
  const outcome = settlement.outcome;
  seen.outcome = {
    status: outcome.status,
    result: outcome.result ?? null,
    error: outcome.error ? String(outcome.error.message ?? outcome.error) : null,
  };
  seen.lastTask = view(settlement.lastTask);
  await session.close();
  await client.close();
  return seen;
}

main().then(
  (seen) => {
    process.stdout.write(JSON.stringify(seen) + "\n");
    process.exit(0);
  },
  (error) => {
    process.stdout.write(JSON.stringify({ error: String(error?.stack ?? error) }) + "\n");
    process.exit(1);
  },
);
