/**
 * Geocoding (`/map-geocode/v2/geocode`), reverse geocoding
 * (`/map-reversegeocode/v2/gc`, 1.6) and place search (`/map-place/v1/search`, 1.9), all
 * answered from the gazetteer.
 */
import type { GatewayRequest, GatewayResponse } from '../core/types.ts';
import type { ApiRoute } from '../gateway/api-module.ts';
import type { Authenticator } from '../gateway/iam-auth.ts';
import {
  coordinateText,
  GAZETTEER,
  type GazetteerEntry,
  jibunAddressOf,
  roadAddressOf,
} from './geo-data.ts';
import { distanceMetres, type LonLat, parseInteger, parseLonLat } from './params.ts';
import { endpointJson } from './responses.ts';
import { reverseGeocode } from './reverse-geocoding.ts';

const MAX_GEOCODE_COUNT = 100;
const DEFAULT_GEOCODE_COUNT = 10;

/** Failures the Maps APIs report inside a 200 body. */
function invalidRequest(parameter: string): GatewayResponse {
  return endpointJson(200, { status: 'INVALID_REQUEST', errorMessage: `${parameter} is INVALID` });
}

function addressElements(entry: GazetteerEntry) {
  const element = (type: string, longName: string) => ({
    types: [type],
    longName,
    shortName: longName,
    code: '',
  });
  return [
    element('SIDO', entry.sido),
    element('SIGUGUN', entry.sigugun),
    element('DONGMYUN', entry.dongmyun),
    element('RI', entry.ri),
    element('ROAD_NAME', entry.roadName),
    element('BUILDING_NUMBER', entry.buildingNumber),
    element('BUILDING_NAME', entry.buildingName),
    element('LAND_NUMBER', entry.landNumber),
    element('POSTAL_CODE', entry.postalCode),
  ];
}

/** Every word of the query must appear in one of the entry's addresses. */
function matchesAddress(entry: GazetteerEntry, query: string): boolean {
  const haystacks = [roadAddressOf(entry), jibunAddressOf(entry), entry.englishAddress].map(
    (text) => text.toLowerCase(),
  );
  const words = query
    .toLowerCase()
    .split(/[\s,]+/)
    .filter(Boolean);
  return haystacks.some((haystack) => words.every((word) => haystack.includes(word)));
}

/** "HCODE@4113554500;4113555000" or "BCODE@...": the codes may be prefixes of an entry's. */
function parseFilter(filter: string): ((entry: GazetteerEntry) => boolean) | undefined {
  const match = /^(HCODE|BCODE)@(\d{1,10}(?:;\d{1,10})*)$/.exec(filter);
  if (!match) return undefined;
  const codes = (match[2] ?? '').split(';');
  const codeOf = (entry: GazetteerEntry) =>
    match[1] === 'HCODE' ? entry.admCode : entry.legalCode;
  return (entry) => codes.some((code) => codeOf(entry).startsWith(code));
}

interface GeocodeQuery {
  readonly query: string;
  readonly centre?: LonLat;
  readonly filter: (entry: GazetteerEntry) => boolean;
  readonly page: number;
  readonly count: number;
}

function parseGeocodeQuery(query: URLSearchParams): GeocodeQuery | GatewayResponse {
  const text = query.get('query')?.trim();
  if (!text) return invalidRequest('query');
  const coordinate = query.get('coordinate');
  const centre = coordinate ? parseLonLat(coordinate) : undefined;
  if (coordinate && !centre) return invalidRequest('coordinate');
  const filterText = query.get('filter');
  const filter = filterText ? parseFilter(filterText) : () => true;
  if (!filter) return invalidRequest('filter');
  const language = query.get('language') ?? 'kor';
  if (language !== 'kor' && language !== 'eng') return invalidRequest('language');
  const page = query.has('page') ? parseInteger(query.get('page') ?? '') : 1;
  if (page === undefined || page < 1) return invalidRequest('page');
  const count = query.has('count') ? parseInteger(query.get('count') ?? '') : DEFAULT_GEOCODE_COUNT;
  if (count === undefined || count < 1 || count > MAX_GEOCODE_COUNT) return invalidRequest('count');
  return { query: text, centre, filter, page, count };
}

function geocode(request: GatewayRequest): GatewayResponse {
  const parsed = parseGeocodeQuery(request.query);
  if (!('query' in parsed)) return parsed;
  const found = GAZETTEER.filter(
    (entry) => parsed.filter(entry) && matchesAddress(entry, parsed.query),
  );
  const pageEntries = found.slice((parsed.page - 1) * parsed.count, parsed.page * parsed.count);
  const addresses = pageEntries.map((entry) => ({
    roadAddress: roadAddressOf(entry),
    jibunAddress: jibunAddressOf(entry),
    englishAddress: entry.englishAddress,
    addressElements: addressElements(entry),
    x: coordinateText(entry.location[0]),
    y: coordinateText(entry.location[1]),
    distance: parsed.centre ? distanceMetres(parsed.centre, entry.location) : 0.0,
  }));
  return endpointJson(200, {
    status: 'OK',
    meta: { totalCount: found.length, page: parsed.page, count: addresses.length },
    addresses,
    errorMessage: '',
  });
}

function matchesPlace(entry: GazetteerEntry, query: string): boolean {
  const name = entry.place.name.toLowerCase();
  return name.includes(query.toLowerCase()) || matchesAddress(entry, query);
}

function searchPlaces(request: GatewayRequest): GatewayResponse {
  const query = request.query.get('query')?.trim();
  if (!query) return invalidRequest('query');
  const coordinate = request.query.get('coordinate');
  const centre = coordinate ? parseLonLat(coordinate) : undefined;
  if (coordinate && !centre) return invalidRequest('coordinate');
  const distanceOf = (entry: GazetteerEntry) =>
    centre ? distanceMetres(centre, entry.location) : 0;
  const found = GAZETTEER.filter((entry) => matchesPlace(entry, query)).sort(
    (a, b) => distanceOf(a) - distanceOf(b),
  );
  const places = found.map((entry) => ({
    name: entry.place.name,
    road_address: roadAddressOf(entry),
    jibun_address: jibunAddressOf(entry),
    phone_number: entry.place.phone,
    x: coordinateText(entry.location[0]),
    y: coordinateText(entry.location[1]),
    distance: distanceOf(entry),
    sessionId: `emulator-${entry.legalCode}`,
  }));
  return endpointJson(200, {
    status: 'OK',
    meta: { totalCount: places.length, count: places.length },
    places,
    errorMessage: '',
  });
}

export function geocodingRoutes(authenticate: Authenticator): ApiRoute[] {
  return [
    {
      method: 'GET',
      path: '/map-geocode/v2/geocode',
      authenticate,
      handle: ({ request }) => geocode(request),
    },
    {
      method: 'GET',
      path: '/map-reversegeocode/v2/gc',
      authenticate,
      handle: ({ request }) => reverseGeocode(request.query),
    },
    {
      method: 'GET',
      path: '/map-place/v1/search',
      authenticate,
      handle: ({ request }) => searchPlaces(request),
    },
  ];
}
