/** Reverse geocoding, `/map-reversegeocode/v2/gc`, from the gazetteer. */
import type { GatewayResponse } from '../core/types.ts';
import { GAZETTEER, type GazetteerEntry, SIDO_CENTRES } from './geo-data.ts';
import { distanceMetres, type LonLat, parseLonLat } from './params.ts';
import { endpointJson, xmlResponse } from './responses.ts';
import { toXmlDocument } from './xml.ts';

const REVERSE_GEOCODE_ORDERS = ['legalcode', 'admcode', 'addr', 'roadaddr'] as const;
type Order = (typeof REVERSE_GEOCODE_ORDERS)[number];
const DEFAULT_ORDERS: readonly Order[] = ['legalcode', 'admcode'];

/** How far from a gazetteer point a coordinate still resolves to it. */
const REVERSE_GEOCODE_RADIUS_M = 3000;

type Output = 'json' | 'xml';

function answer(output: Output, status: number, body: unknown): GatewayResponse {
  return output === 'xml'
    ? xmlResponse(status, toXmlDocument('response', body))
    : endpointJson(status, body);
}

function invalid(output: Output, message: string): GatewayResponse {
  return answer(output, 400, { status: { code: 100, name: 'invalid request', message } });
}

const centre = (location: LonLat | undefined) =>
  location ? { crs: 'EPSG:4326', x: location[0], y: location[1] } : { crs: '', x: 0.0, y: 0.0 };

function area(name: string, location: LonLat | undefined) {
  return { name, coords: { center: centre(name === '' ? undefined : location) } };
}

function region(entry: GazetteerEntry, order: Order) {
  const dong = order === 'admcode' ? entry.admDong : entry.dongmyun;
  return {
    area0: { name: 'kr', coords: { center: centre(undefined) } },
    area1: { ...area(entry.sido, SIDO_CENTRES[entry.sido]), alias: entry.sido.slice(0, 2) },
    area2: area(entry.sigugun, entry.location),
    area3: area(dong, entry.location),
    area4: area(order === 'admcode' ? '' : entry.ri, entry.location),
  };
}

const emptyAddition = { type: '', value: '' };

function land(entry: GazetteerEntry, order: Order) {
  const [main = '', sub = ''] = entry.landNumber.split('-');
  const common = { coords: { center: centre(undefined) } };
  if (order === 'addr') {
    return {
      type: '1',
      number1: main,
      number2: sub,
      addition0: emptyAddition,
      addition1: emptyAddition,
      addition2: emptyAddition,
      addition3: emptyAddition,
      addition4: emptyAddition,
      ...common,
    };
  }
  return {
    type: '',
    number1: entry.buildingNumber,
    number2: '',
    addition0: { type: 'building', value: entry.buildingName },
    addition1: { type: 'zipcode', value: entry.postalCode },
    addition2: emptyAddition,
    addition3: emptyAddition,
    addition4: emptyAddition,
    name: entry.roadName,
    ...common,
  };
}

// [INFERRED] code types: L for legal codes, A for administrative ones, S for addresses.
function resultFor(entry: GazetteerEntry, order: Order) {
  const id = order === 'admcode' ? entry.admCode : entry.legalCode;
  const type = order === 'legalcode' ? 'L' : order === 'admcode' ? 'A' : 'S';
  const result = {
    name: order,
    code: { id, type, mappingId: id.slice(0, 8) },
    region: region(entry, order),
  };
  return order === 'addr' || order === 'roadaddr'
    ? { ...result, land: land(entry, order) }
    : result;
}

function nearest(location: LonLat): GazetteerEntry | undefined {
  let best: GazetteerEntry | undefined;
  let bestDistance = REVERSE_GEOCODE_RADIUS_M;
  for (const entry of GAZETTEER) {
    const distance = distanceMetres(location, entry.location);
    if (distance <= bestDistance) {
      best = entry;
      bestDistance = distance;
    }
  }
  return best;
}

function parseOrders(text: string | null): Order[] | undefined {
  if (text === null || text.trim() === '') return [...DEFAULT_ORDERS];
  const names = text.split(',').map((name) => name.trim());
  const known = (name: string): name is Order =>
    (REVERSE_GEOCODE_ORDERS as readonly string[]).includes(name);
  return names.every(known) ? names : undefined;
}

const SOURCE_CRS = 'epsg:4326';

export function reverseGeocode(query: URLSearchParams): GatewayResponse {
  const outputText = query.get('output') ?? 'json';
  if (outputText !== 'json' && outputText !== 'xml') return invalid('json', 'output is invalid');
  const output: Output = outputText;
  const location = parseLonLat(query.get('coords') ?? undefined);
  if (!location) return invalid(output, 'coords is invalid');
  if ((query.get('sourcecrs') ?? SOURCE_CRS).toLowerCase() !== SOURCE_CRS) {
    return invalid(output, 'sourcecrs is invalid');
  }
  const orders = parseOrders(query.get('orders'));
  if (!orders) return invalid(output, 'orders is invalid');
  const entry = nearest(location);
  if (!entry) {
    const status = { code: 3, name: 'no results', message: '요청한 데이타의 결과가 없습니다.' };
    return answer(output, 200, { status, results: [] });
  }
  return answer(output, 200, {
    status: { code: 0, name: 'ok', message: 'done' },
    results: orders.map((order) => resultFor(entry, order)),
  });
}
