/**
 * Maps APIs (one function, `catalogueGroup` below): static and tile images, driving directions, place
 * search, geocoding and reverse geocoding.
 */
import * as z from 'zod/mini';
import { intText } from '../core/schemas.ts';
import { catalogueGroup, defineEntry } from './entry.ts';
import {
  decodeDirectionsError,
  directionsCodeNotZero,
  reverseGeocodeFailure,
  statusNotOk,
} from './failures.ts';
import {
  lonLat,
  oneOf,
  pairsOf,
  repeated,
  segment,
  someOf,
  strictInput,
  text,
  token,
} from './fields.ts';

const MAX_ZOOM = 21;

/** "x,y" in the map's coordinate system (degrees for the default EPSG:4326). */
const XY = /^-?[0-9]{1,9}(?:\.[0-9]+)?,-?[0-9]{1,9}(?:\.[0-9]+)?$/;

const staticMapQuerySchema = strictInput({
  w: intText(1, 4096),
  h: intText(1, 2048),
  center: z.optional(z.string().check(z.regex(XY, 'expected "x,y", e.g. 127.1054,37.3595'))),
  level: z.optional(intText(0, MAX_ZOOM)),
  markers: z.optional(repeated(text(1, 1000), 50)),
  maptype: z.optional(token(32)),
  format: z.optional(oneOf(['jpg', 'jpeg', 'png8', 'png'])),
  scale: z.optional(oneOf(['1', '2'])),
  lang: z.optional(oneOf(['ko', 'en', 'ja', 'zh'])),
  crs: z.optional(
    z.string().check(z.regex(/^[A-Z]+:[0-9]+$/, 'expected a CRS such as EPSG:4326 or NHN:2048')),
  ),
  dataversion: z.optional(token(64)),
}).check(
  z.refine((query) => query.center !== undefined || query.markers !== undefined, {
    message: 'expected center (with level) or at least one marker',
    path: ['center'],
  }),
  z.refine(
    (query) =>
      (query.crs ?? 'EPSG:4326') !== 'EPSG:4326' ||
      query.center === undefined ||
      lonLat().safeParse(query.center).success,
    { message: 'center out of range for EPSG:4326 (longitude,latitude)', path: ['center'] },
  ),
);
type StaticMapQuery = z.infer<typeof staticMapQuerySchema>;

/**
 * API Gateway path parameters are whole segments, so the last segment of the tile route is
 * one parameter, `{tile}` = `{y}@{scale}x.{format}`, split here.
 */
const TILE = /^(0|[1-9][0-9]{0,6})@([12])x\.(png|jpg)$/;
const tileName = z.pipe(
  z
    .string()
    .check(z.regex(TILE, 'expected {y}@{scale}x.{format}: y an integer, scale 1|2, png|jpg')),
  z.transform((value: string) => {
    const [, y = '0', scale = '1', format = 'png'] = TILE.exec(value) ?? [];
    return { y: Number(y), scale: Number(scale), format };
  }),
);

const tilePathSchema = z
  .object({
    // A path segment upstream: `..` would move the tile path one level up.
    mapType: segment(32),
    z: intText(0, MAX_ZOOM),
    x: intText(0, 2 ** MAX_ZOOM - 1),
    tile: tileName,
  })
  .check(
    z.refine((path) => path.x < 2 ** path.z && path.tile.y < 2 ** path.z, {
      message: 'x and y must be below 2^z',
      path: ['tile'],
    }),
  );
type TilePath = z.infer<typeof tilePathSchema>;
const tileQuerySchema = strictInput({ mt: z.optional(token(100)) });
type TileQuery = z.infer<typeof tileQuerySchema>;

const DIRECTION_OPTIONS = [
  'trafast',
  'tracomfort',
  'traoptimal',
  'traavoidtoll',
  'traavoidcaronly',
] as const;
const MAX_WAYPOINTS = 5;

const waypoints = z.string().check(
  z.refine((value) => {
    const points = value.split('|');
    return points.length <= MAX_WAYPOINTS && points.every((p) => lonLat().safeParse(p).success);
  }, `expected 1 to ${MAX_WAYPOINTS} "longitude,latitude" points joined by |`),
);
const directionsQuerySchema = strictInput({
  start: lonLat(),
  goal: lonLat(),
  waypoints: z.optional(waypoints),
  option: z.optional(someOf(DIRECTION_OPTIONS, ':')),
  cartype: z.optional(intText(1, 6)),
  fueltype: z.optional(oneOf(['gasoline', 'highgradegasoline', 'diesel', 'lpg'])),
  mileage: z.optional(
    z.string().check(z.regex(/^[0-9]{1,3}(\.[0-9]{1,2})?$/, 'expected km per litre, e.g. 14.5')),
  ),
  lang: z.optional(oneOf(['ko', 'en', 'ja', 'zh'])),
});
type DirectionsQuery = z.infer<typeof directionsQuerySchema>;

const placesQuerySchema = strictInput({
  query: text(1, 200),
  coordinate: z.optional(lonLat()),
});
type PlacesQuery = z.infer<typeof placesQuerySchema>;

const geocodeQuerySchema = strictInput({
  query: text(1, 500),
  coordinate: z.optional(lonLat()),
  filter: z.optional(
    z
      .string()
      .check(
        z.regex(
          /^(HCODE|BCODE)@[0-9]{1,10}(;[0-9]{1,10}){0,99}$/,
          'expected HCODE@<code>[;<code>...] or BCODE@<code>[;<code>...]',
        ),
      ),
  ),
  language: z.optional(oneOf(['kor', 'eng'])),
  page: z.optional(intText(1, 100_000)),
  count: z.optional(intText(1, 100)),
});
type GeocodeQuery = z.infer<typeof geocodeQuerySchema>;

const REVERSE_ORDERS = ['legalcode', 'admcode', 'addr', 'roadaddr'] as const;
const reverseGeocodeQuerySchema = strictInput({
  coords: lonLat(),
  sourcecrs: z.optional(
    z.string().check(z.regex(/^(epsg|nhn):[0-9]+$/i, 'expected a CRS such as epsg:4326')),
  ),
  orders: z.optional(someOf(REVERSE_ORDERS, ',', 'commas')),
  output: z.optional(oneOf(['json', 'xml'])),
  request: z.optional(oneOf(['coordsToaddr'])),
});
type ReverseGeocodeQuery = z.infer<typeof reverseGeocodeQuerySchema>;

const JSON_ANSWER = { kind: 'json', contentTypes: ['application/json'] } as const;
const IMAGE_ANSWER = { kind: 'binary', contentTypes: ['image/jpeg', 'image/png'] } as const;

export const mapsEntries = catalogueGroup('catalogueMaps', [
  defineEntry<undefined, StaticMapQuery>({
    id: 'staticMap',
    api: 'maps',
    method: 'GET',
    path: '/maps/static',
    summary: 'A static map image',
    upstream: { method: 'GET', paths: ['/map-static/v2/raster'] },
    sends: 'query',
    answers: IMAGE_ANSWER,
    idempotent: true,
    query: staticMapQuerySchema,
    toUpstream: ({ query }) => ({
      params: pairsOf(query, [
        'w',
        'h',
        'center',
        'level',
        'markers',
        'maptype',
        'format',
        'scale',
        'lang',
        'crs',
        'dataversion',
      ]),
    }),
  }),
  defineEntry<undefined, TileQuery, TilePath>({
    id: 'mapTile',
    api: 'maps',
    method: 'GET',
    path: '/maps/tiles/{mapType}/{z}/{x}/{tile}',
    summary: 'A map tile image; {tile} is {y}@{scale}x.{format}, e.g. 3@2x.png',
    upstream: {
      method: 'GET',
      paths: ['/map-tile/v1/raster/styles/{MapType}/{Z}/{X}/{Y}@{Scale}x.{Format}'],
    },
    sends: 'query',
    answers: IMAGE_ANSWER,
    idempotent: true,
    pathParams: tilePathSchema,
    query: tileQuerySchema,
    toUpstream: ({ path, query }) => ({
      path:
        `/map-tile/v1/raster/styles/${encodeURIComponent(path.mapType)}/${path.z}/${path.x}/` +
        `${path.tile.y}@${path.tile.scale}x.${path.tile.format}`,
      params: pairsOf(query, ['mt']),
    }),
  }),
  defineEntry<undefined, DirectionsQuery>({
    id: 'directions',
    api: 'maps',
    method: 'GET',
    path: '/maps/directions',
    summary: 'Driving directions (Directions 5)',
    upstream: { method: 'GET', paths: ['/map-direction/v1/driving'] },
    sends: 'query',
    answers: JSON_ANSWER,
    idempotent: true,
    query: directionsQuerySchema,
    toUpstream: ({ query }) => ({
      params: pairsOf(query, [
        'start',
        'goal',
        'waypoints',
        'option',
        'cartype',
        'fueltype',
        'mileage',
        'lang',
      ]),
    }),
    failureIn200: directionsCodeNotZero,
    decodeError: decodeDirectionsError,
  }),
  defineEntry<undefined, PlacesQuery>({
    id: 'places',
    api: 'maps',
    method: 'GET',
    path: '/maps/places',
    summary: 'Search places by keyword',
    upstream: { method: 'GET', paths: ['/map-place/v1/search'] },
    sends: 'query',
    answers: JSON_ANSWER,
    idempotent: true,
    query: placesQuerySchema,
    toUpstream: ({ query }) => ({ params: pairsOf(query, ['query', 'coordinate']) }),
    // Answers in the geocoding envelope (status/meta/errorMessage).
    failureIn200: statusNotOk,
  }),
  defineEntry<undefined, GeocodeQuery>({
    id: 'geocode',
    api: 'maps',
    method: 'GET',
    path: '/maps/geocode',
    summary: 'Address to coordinates',
    upstream: { method: 'GET', paths: ['/map-geocode/v2/geocode'] },
    sends: 'query',
    answers: { kind: 'json-or-xml', contentTypes: ['application/json', 'application/xml'] },
    idempotent: true,
    query: geocodeQuerySchema,
    toUpstream: ({ query }) => ({
      params: pairsOf(query, ['query', 'coordinate', 'filter', 'language', 'page', 'count']),
    }),
    failureIn200: statusNotOk,
  }),
  defineEntry<undefined, ReverseGeocodeQuery>({
    id: 'reverseGeocode',
    api: 'maps',
    method: 'GET',
    path: '/maps/reverse-geocode',
    summary: 'Coordinates to address (JSON or XML, as output= asks)',
    upstream: { method: 'GET', paths: ['/map-reversegeocode/v2/gc'] },
    sends: 'query',
    answers: { kind: 'json-or-xml', contentTypes: ['application/json', 'application/xml'] },
    idempotent: true,
    query: reverseGeocodeQuerySchema,
    toUpstream: ({ query }) => ({
      params: pairsOf(query, ['coords', 'sourcecrs', 'orders', 'output', 'request']),
    }),
    failureIn200: reverseGeocodeFailure,
  }),
]);
