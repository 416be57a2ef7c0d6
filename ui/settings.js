// The settings panel as request fields: temperature, max_tokens, seed, a system prompt, tools,
// and response_format from the output-format box (a JSON schema, any JSON object, or a
// structural tag). A box that does not parse is refused here, naming the box.

const form = () => document.getElementById('settings-form');

const BOX_TITLES = {
  json_schema: 'JSON schema',
  structural_tag: "Structural tag: the tag's format, e.g. {\"type\": \"const_string\", \"value\": \"hi\"}",
};

/** Shows the format box only for the formats that need one. */
export function watchFormatChoice() {
  const select = form().elements.format;
  const sync = () => {
    const title = BOX_TITLES[select.value];
    document.getElementById('format-box-label').hidden = title === undefined;
    document.getElementById('format-box-title').textContent = title ?? '';
  };
  select.addEventListener('change', sync);
  sync();
}

function parseBox(text, what) {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${what} is not JSON: ${error.message}`);
  }
}

function responseFormat(choice, body) {
  if (choice === 'none') return undefined;
  if (choice === 'json_object') return { type: 'json_object' };
  if (body.trim() === '') throw new Error(`The ${choice === 'json_schema' ? 'JSON schema' : 'structural tag'} box is empty.`);
  const value = parseBox(body, `The ${choice === 'json_schema' ? 'schema' : 'structural tag'}`);
  if (choice === 'json_schema') return { type: 'json_schema', json_schema: { name: 'page_schema', schema: value, strict: true } };
  return { type: 'structural_tag', format: value };
}

const NUMBER_LABELS = { temperature: 'Temperature', max_tokens: 'Max tokens', seed: 'Seed' };

/** The request fields the panel asks for, and the system prompt; throws Error with a message for the user. */
export function readSettings() {
  const fields = form().elements;
  const request = {};
  const number = (name) => {
    const field = fields[name];
    // A number input holding what is not a number reads as empty: say so rather than drop it.
    if (field.validity.badInput) throw new Error(`${NUMBER_LABELS[name]} is not a number.`);
    return field.value.trim() === '' ? undefined : Number(field.value);
  };
  const temperature = number('temperature');
  if (temperature !== undefined) request.temperature = temperature;
  const maxTokens = number('max_tokens');
  if (maxTokens !== undefined) request.max_tokens = maxTokens;
  const seed = number('seed');
  if (seed !== undefined) request.seed = seed;
  const format = responseFormat(fields.format.value, fields.format_body.value);
  if (format) request.response_format = format;
  if (fields.tools.value.trim() !== '') {
    const tools = parseBox(fields.tools.value, 'Tools');
    if (!Array.isArray(tools)) throw new Error('Tools must be a JSON list.');
    if (tools.length > 0) Object.assign(request, { tools, tool_choice: fields.tool_choice.value });
  }
  return { request, system: fields.system.value.trim() };
}
