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
