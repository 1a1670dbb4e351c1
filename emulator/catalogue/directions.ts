/**
 * Driving directions, `/map-direction/v1/driving`: a straight-line
 * "route" through the waypoints with road-like distance, time and fares. Route failures come
 * as HTTP 200 bodies with a non-zero `code`, as in the platform's older samples.
 */
import type { GatewayResponse } from '../core/types.ts';
import type { ApiRoute } from '../gateway/api-module.ts';
import type { Authenticator } from '../gateway/iam-auth.ts';
import { distanceMetres, type LonLat, parseInteger, parseLonLat } from './params.ts';
import { badRequest, endpointJson } from './responses.ts';

const DIRECTION_OPTIONS = [
  'trafast',
  'tracomfort',
  'traoptimal',
  'traavoidtoll',
  'traavoidcaronly',
] as const;
type DirectionOption = (typeof DIRECTION_OPTIONS)[number];
const MAX_WAYPOINTS = 5;
const FUEL_TYPES = ['gasoline', 'highgradegasoline', 'diesel', 'lpg'] as const;
type FuelType = (typeof FUEL_TYPES)[number];
const LANGUAGES = ['ko', 'en', 'ja', 'zh'];

/** Where there are roads: mainland South Korea and its islands, roughly. */
const ROAD_AREA = { minLon: 124.5, maxLon: 131.0, minLat: 33.0, maxLat: 38.7 };

const DIRECTION_MESSAGES = {
  0: '길찾기를 성공하였습니다.',
  1: '출발지와 도착지가 동일합니다. 확인 후 다시 지정해주세요.',
  2: '출발지 또는 도착지가 도로 주변이 아닌 경우입니다.',
  4: '경유지가 도로 주변이 아닌 경우입니다.',
} as const;

/** Roads are longer than the crow flies. */
const ROAD_FACTOR = 1.3;
const SPEED_KMH: Readonly<Record<DirectionOption, number>> = {
  trafast: 72,
  traoptimal: 66,
  tracomfort: 60,
  traavoidtoll: 54,
  traavoidcaronly: 50,
};
const FUEL_PRICE_PER_L: Readonly<Record<FuelType, number>> = {
  gasoline: 1650,
  highgradegasoline: 1900,
  diesel: 1550,
  lpg: 1050,
};
const DEFAULT_MILEAGE_KM_PER_L = 14;
const POINTS_PER_LEG = 8;

interface DirectionsRequest {
  readonly start: LonLat;
  readonly goal: LonLat;
  readonly waypoints: readonly LonLat[];
  readonly options: readonly DirectionOption[];
  readonly fuelType: FuelType;
  readonly mileage: number;
}

const isOption = (name: string): name is DirectionOption =>
  (DIRECTION_OPTIONS as readonly string[]).includes(name);

function parseWaypoints(text: string | null): LonLat[] | string {
  if (text === null || text === '') return [];
  const points = text.split('|').map((point) => parseLonLat(point.split(':')[0]));
  if (points.length > MAX_WAYPOINTS) return `waypoints allows at most ${MAX_WAYPOINTS} points`;
  return points.every((point) => point !== undefined) ? points : 'waypoints is invalid';
}

/** Input errors the route engine cannot even start with: the 400/100 envelope. */
function parseDirections(query: URLSearchParams): DirectionsRequest | string {
  const start = parseLonLat(query.get('start') ?? undefined);
  if (!start) return 'start must be "lon,lat"';
  const goal = parseLonLat(query.get('goal') ?? undefined);
  if (!goal) return 'goal must be "lon,lat"';
  const waypoints = parseWaypoints(query.get('waypoints'));
  if (typeof waypoints === 'string') return waypoints;
  const options = (query.get('option') || 'traoptimal').split(':');
  if (!options.every(isOption)) return `option must be ${DIRECTION_OPTIONS.join(', ')}`;
  const fuelType = query.get('fueltype') ?? 'gasoline';
  if (!(FUEL_TYPES as readonly string[]).includes(fuelType)) return 'fueltype is invalid';
  const cartype = query.get('cartype');
  if (
    cartype !== null &&
    !((parseInteger(cartype) ?? 0) >= 1 && (parseInteger(cartype) ?? 0) <= 6)
  ) {
    return 'cartype must be 1 to 6';
  }
  const mileageText = query.get('mileage');
  const mileage = mileageText === null ? DEFAULT_MILEAGE_KM_PER_L : Number(mileageText);
  if (!(mileage > 0)) return 'mileage must be a positive number';
  const lang = query.get('lang');
  if (lang !== null && !LANGUAGES.includes(lang)) return 'lang is invalid';
  return { start, goal, waypoints, options, fuelType: fuelType as FuelType, mileage };
}

const nearRoad = ([lon, lat]: LonLat): boolean =>
  lon >= ROAD_AREA.minLon &&
  lon <= ROAD_AREA.maxLon &&
  lat >= ROAD_AREA.minLat &&
  lat <= ROAD_AREA.maxLat;

function failure(code: 1 | 2 | 4): GatewayResponse {
  return endpointJson(200, { code, message: DIRECTION_MESSAGES[code] });
}

/** Seoul time as the platform prints it: 2018-12-21T14:45:34. */
function seoulTime(now: number): string {
  return new Date(now + 9 * 3600_000).toISOString().slice(0, 19);
}

function interpolate(from: LonLat, to: LonLat): LonLat[] {
  return Array.from({ length: POINTS_PER_LEG }, (_, step) => {
    const t = step / POINTS_PER_LEG;
    const lon = Number((from[0] + (to[0] - from[0]) * t).toFixed(7));
    const lat = Number((from[1] + (to[1] - from[1]) * t).toFixed(7));
    return [lon, lat] as const;
  });
}

function routeFor(request: DirectionsRequest, option: DirectionOption, departureTime: string) {
  const stops = [request.start, ...request.waypoints, request.goal];
  const legs = stops.slice(1).map((to, index) => [stops[index] as LonLat, to] as const);
  const legDistances = legs.map(([from, to]) => Math.round(distanceMetres(from, to) * ROAD_FACTOR));
  const msPerMetre = 3600 / SPEED_KMH[option];
  const distance = legDistances.reduce((sum, legDistance) => sum + legDistance, 0);
  const duration = Math.round(distance * msPerMetre);
  const path = [...legs.flatMap(([from, to]) => interpolate(from, to)), request.goal];
  const lons = stops.map((stop) => stop[0]);
  const lats = stops.map((stop) => stop[1]);
  const km = distance / 1000;
  const summary = {
    start: { location: request.start },
    goal: { location: request.goal, dir: 0 },
    ...(request.waypoints.length > 0 && {
      waypoints: request.waypoints.map((location, index) => ({
        location,
        dir: 0,
        distance: legDistances[index] ?? 0,
        duration: Math.round((legDistances[index] ?? 0) * msPerMetre),
        pointIndex: (index + 1) * POINTS_PER_LEG,
      })),
    }),
    distance,
    duration,
    departureTime,
    bbox: [
      [Math.min(...lons), Math.min(...lats)],
      [Math.max(...lons), Math.max(...lats)],
    ],
    tollFare: option === 'traavoidtoll' || km < 20 ? 0 : Math.round((900 + km * 45) / 100) * 100,
    taxiFare: Math.round((4800 + Math.max(0, km - 1.6) * 760) / 100) * 100,
    fuelPrice: Math.round((km / request.mileage) * FUEL_PRICE_PER_L[request.fuelType]),
  };
  const section = [
    {
      pointIndex: 0,
      pointCount: path.length,
      distance,
      name: '경로',
      congestion: 1,
      speed: SPEED_KMH[option],
    },
  ];
  const guide = legs.map((_, index) => ({
    pointIndex: (index + 1) * POINTS_PER_LEG,
    type: index === legs.length - 1 ? 88 : 87,
    instructions: index === legs.length - 1 ? '목적지' : `경유지 ${index + 1}`,
    distance: legDistances[index] ?? 0,
    duration: Math.round((legDistances[index] ?? 0) * msPerMetre),
  }));
  return [{ summary, path, section, guide }];
}

function directions(query: URLSearchParams, now: number): GatewayResponse {
  const request = parseDirections(query);
  if (typeof request === 'string') return badRequest(request);
  // A round trip through waypoints is a route; the same point twice with none is not.
  if (distanceMetres(request.start, request.goal) < 1 && request.waypoints.length === 0) {
    return failure(1);
  }
  if (!nearRoad(request.start) || !nearRoad(request.goal)) return failure(2);
  if (request.waypoints.some((point) => !nearRoad(point))) return failure(4);
  const currentDateTime = seoulTime(now);
  const route = Object.fromEntries(
    request.options.map((option) => [option, routeFor(request, option, currentDateTime)]),
  );
  return endpointJson(200, { code: 0, message: DIRECTION_MESSAGES[0], currentDateTime, route });
}

export function directionRoutes(authenticate: Authenticator): ApiRoute[] {
  return [
    {
      method: 'GET',
      path: '/map-direction/v1/driving',
      authenticate,
      handle: ({ request }) => directions(request.query, request.gatewayNow),
    },
  ];
}
