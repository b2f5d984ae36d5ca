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

// What the TypeScript MCP SDK's clients do with a listed tool and its structured result
// (adv29zy). argv[2]: "v1" (@modelcontextprotocol/sdk, the MCP Inspector's) or "v2"
// (@modelcontextprotocol/client). stdin: {"tools": [listed tools], "name": a tool's name,
// "value": a structuredContent}. stdout: one JSON line {"listed": "" or the error
// listTools raises, "compiled": "" or the error compiling the tool's outputSchema,
// "refused": "" or why the client refuses the value}.
import { readFileSync } from "node:fs";

const version = process.argv[2];
const input = JSON.parse(readFileSync(0, "utf8"));
const seen = { listed: "", compiled: "", refused: "" };
const tool = input.tools.find((t) => t.name === input.name);
if (version === "v1") {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const client = new Client({ name: "adv29zy", version: "1" });
  try {
    client.cacheToolMetadata(input.tools); // what listTools() runs on every listing
  } catch (error) {
    seen.listed = String(error);
  }
  const { AjvJsonSchemaValidator } = await import(
    "@modelcontextprotocol/sdk/validation/ajv"
  );
  check(new AjvJsonSchemaValidator());
} else {
  const { AjvJsonSchemaValidator } = await import(
    "@modelcontextprotocol/client/validators/ajv"
  );
  check(new AjvJsonSchemaValidator());
}
console.log(JSON.stringify(seen));

function check(provider) {
  let validate;
  try {
    validate = provider.getValidator(tool.outputSchema);
  } catch (error) {
    seen.compiled = String(error);
    return;
  }
  if (input.value !== undefined) {
    const result = validate(input.value);
    seen.refused = result.valid ? "" : result.errorMessage;
  }
}
