/**
 * Copyright 2026 mech-catalogue contributors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

// A paid call through the TypeScript MCP SDK's client (@modelcontextprotocol/client,
// its second major), as a Node agent makes it (adv29zy F1). argv: SERVER_JSON
// ({"command", "args", "env", "cwd"}), the tool, its arguments as JSON. Lists the tools,
// calls the tool, then calls it again with the same arguments (the server's free
// re-read). stdout: one JSON line {"tools": [names], "calls": [{"result"} or {"error"}]}.
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const [serverJson, tool, argumentsJson] = process.argv.slice(2);
const client = new Client({ name: "adv29zy-client", version: "1.0.0" });
await client.connect(new StdioClientTransport(JSON.parse(serverJson)));
const seen = { tools: [], calls: [] };
try {
  seen.tools = (await client.listTools()).tools.map((t) => t.name);
  for (let i = 0; i < 2; i++) {
    try {
      const result = await client.callTool(
        { name: tool, arguments: JSON.parse(argumentsJson) },
        { timeout: 240000 },
      );
      seen.calls.push({ result });
    } catch (error) {
      seen.calls.push({ error: String(error) });
    }
  }
} finally {
  console.log(JSON.stringify(seen));
  await client.close();
}
