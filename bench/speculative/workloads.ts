// The prompts bench:speculative runs: a rewrite that copies most of a given text, a JSON
// schema whose keys and enum values are long forced strings, and free chat.

export interface Workload {
  /** User messages; concurrent requests take them in turn. */
  prompts: string[];
  /** A JSON schema the output must follow, when the workload has one. */
  schema?: unknown;
  /** The predicted output every request carries (OpenAI's Predicted Outputs), when the workload has one. */
  prediction?: string;
}

const STORY =
  'The harbour town of Ellesmere wakes before the sun. Fishing boats leave the quay in a line, ' +
  'their engines coughing in the cold air, while the baker on Mill Street pulls the first loaves ' +
  'from his oven. By six the market square fills with carts of apples, pears and late plums, and ' +
  'the smell of coffee drifts from the small cafe beside the church. Children walk to the school ' +
  'on the hill in pairs, carrying satchels that are too big for them, and the old ferry sounds its ' +
  'horn twice before it crosses the bay to the island. In the afternoon the wind turns and the ' +
  'gulls follow the boats home. The fishermen sort their catch on the quay, herring in one crate ' +
  'and mackerel in another, and the buyers from the city argue about the price until the light ' +
  'begins to fade. When the lamps come on along the sea wall, the town grows quiet again. The ' +
  'baker sweeps his floor, the cafe stacks its chairs, and the ferry rests at its mooring until ' +
  'morning. Visitors often say that nothing happens in Ellesmere, but the people who live there ' +
  'know better. Every day the tide brings something new: a storm, a stranger, a boat that is late, ' +
  'or a letter from someone who left years ago and wants to come home. The library on the corner ' +
  'keeps a record of all of it in a row of green notebooks, written by a retired teacher who ' +
  'walks the harbour every evening with her dog and notes the weather, the boats and the names of ' +
  'the ships that pass on the horizon. Her notebooks now fill three shelves, and the council has ' +
  'asked to print them as a book for the town.';

const REWRITE = [
  `Rewrite the following text exactly as it is, but change the town's name from Ellesmere to Carrowmore and the dog to a cat. Output only the rewritten text.\n\n${STORY}`,
  `Copy the following text word for word, replacing "baker" with "butcher" everywhere. Output only the text.\n\n${STORY}`,
];

const FORECAST_SCHEMA = {
  type: 'object',
  properties: {
    meteorological_station_identifier: { type: 'string', enum: ['northern_coastal_observatory', 'southern_mountain_weather_station', 'eastern_river_valley_monitor'] },
    forecast_temperature_celsius_maximum: { type: 'integer', minimum: -40, maximum: 50 },
    forecast_temperature_celsius_minimum: { type: 'integer', minimum: -40, maximum: 50 },
    predominant_weather_condition: { type: 'string', enum: ['clear_skies_with_light_winds', 'scattered_showers_and_sunny_spells', 'persistent_heavy_rainfall', 'thunderstorms_with_strong_gusts'] },
    precipitation_probability_percentage: { type: 'integer', minimum: 0, maximum: 100 },
    issued_by_duty_forecaster_name: { type: 'string', maxLength: 24 },
  },
  required: [
    'meteorological_station_identifier',
    'forecast_temperature_celsius_maximum',
    'forecast_temperature_celsius_minimum',
    'predominant_weather_condition',
    'precipitation_probability_percentage',
    'issued_by_duty_forecaster_name',
  ],
  additionalProperties: false,
};

// Sixteen requests, so that each run of bench:speculative (4 wide, 3 repetitions and a
// warm-up) asks for forecasts no run before it asked for.
const PLACES = ['the northern coast', 'the mountains', 'the river valley', 'the southern hills', 'the capital', 'the islands', 'the eastern plains', 'the lake district'];
const FORECAST_PROMPTS = PLACES.flatMap((place) => [`Give tomorrow's weather forecast for ${place} as JSON.`, `Write a JSON weather forecast for ${place}.`]);

const CHAT = [
  'What are three good habits for staying healthy? Explain each briefly.',
  'Why is the sky blue? Answer in a short paragraph.',
  'Give me a few ideas for a weekend trip with friends.',
  'How does a bicycle stay upright when it moves?',
];

export const WORKLOADS: Record<string, Workload> = {
  rewrite: { prompts: REWRITE },
  // The same rewrites with the original text as the prediction, as an editor sends the file it edits.
  predicted: { prompts: REWRITE, prediction: STORY },
  json: { prompts: FORECAST_PROMPTS, schema: FORECAST_SCHEMA },
  chat: { prompts: CHAT },
};
