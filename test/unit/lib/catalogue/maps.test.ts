/** What the static maps, tiles, directions, places, geocoding and reverse geocoding routes accept and refuse before anything is sent. */
import { describe, expect, it } from 'vitest';
import { mapsEntries } from '../../../../lib/catalogue/maps.ts';
import { type Accepted, checkInputSchemas, type Refused, schemaOf } from './input-schemas.ts';

const accepted: Accepted[] = [
  ['GET /maps/static', 'query', { w: '1', h: '2048', center: '127.1,37.3', level: '21' }],
  ['GET /maps/static', 'query', { w: '4096', h: '1', markers: 'type:d|pos:127 37' }],
  ['GET /maps/static', 'query', { w: '300', h: '300', center: '309000,552000', crs: 'NHN:2048' }],
  [
    'GET /maps/tiles/{mapType}/{z}/{x}/{tile}',
    'path',
    { mapType: 'basic', z: '0', x: '0', tile: '0@1x.png' },
  ],
  [
    'GET /maps/tiles/{mapType}/{z}/{x}/{tile}',
    'path',
    { mapType: 'satellite', z: '3', x: '7', tile: '7@2x.jpg' },
  ],
  [
    'GET /maps/directions',
    'query',
    {
      start: '127.1,37.3',
      goal: '129.07,35.17',
      option: 'trafast:traavoidtoll',
      waypoints: '127.5,36|128,36.5',
    },
  ],
  ['GET /maps/places', 'query', { query: '강남역', coordinate: '127.02,37.49' }],
  [
    'GET /maps/geocode',
    'query',
    {
      query: '불정로 6',
      count: '100',
      page: '2',
      language: 'eng',
      filter: 'HCODE@4113554500;4113555000',
    },
  ],
  [
    'GET /maps/reverse-geocode',
    'query',
    { coords: '129.07,35.17', orders: 'legalcode,roadaddr', output: 'xml' },
  ],
];

const refused: Refused[] = [
  ['static map without w', 'GET /maps/static', 'query', { h: '1', center: '1,1' }, 'w'],
  ['static map w 0', 'GET /maps/static', 'query', { w: '0', h: '1', center: '1,1' }, 'w'],
  [
    'static map h over 2048',
    'GET /maps/static',
    'query',
    { w: '1', h: '2049', center: '1,1' },
    'h',
  ],
  [
    'static map level 22',
    'GET /maps/static',
    'query',
    { w: '1', h: '1', center: '1,1', level: '22' },
    'level',
  ],
  [
    'static map scale 3',
    'GET /maps/static',
    'query',
    { w: '1', h: '1', center: '1,1', scale: '3' },
    'scale',
  ],
  [
    'static map neither center nor markers',
    'GET /maps/static',
    'query',
    { w: '1', h: '1' },
    'center',
  ],
  [
    'static map latitude 95',
    'GET /maps/static',
    'query',
    { w: '1', h: '1', center: '127,95' },
    'center',
  ],
  [
    'tile without scale',
    'GET /maps/tiles/{mapType}/{z}/{x}/{tile}',
    'path',
    { mapType: 'basic', z: '1', x: '0', tile: '0.png' },
    'tile',
  ],
  [
    'tile scale 3',
    'GET /maps/tiles/{mapType}/{z}/{x}/{tile}',
    'path',
    { mapType: 'basic', z: '1', x: '0', tile: '0@3x.png' },
    'tile',
  ],
  [
    'tile format gif',
    'GET /maps/tiles/{mapType}/{z}/{x}/{tile}',
    'path',
    { mapType: 'basic', z: '1', x: '0', tile: '0@1x.gif' },
    'tile',
  ],
  [
    'tile x outside the zoom',
    'GET /maps/tiles/{mapType}/{z}/{x}/{tile}',
    'path',
    { mapType: 'basic', z: '1', x: '2', tile: '0@1x.png' },
    'tile',
  ],
  [
    'tile mapType ..',
    'GET /maps/tiles/{mapType}/{z}/{x}/{tile}',
    'path',
    { mapType: '..', z: '1', x: '0', tile: '0@1x.png' },
    'mapType',
  ],
  [
    'tile mapType .',
    'GET /maps/tiles/{mapType}/{z}/{x}/{tile}',
    'path',
    { mapType: '.', z: '1', x: '0', tile: '0@1x.png' },
    'mapType',
  ],
  [
    'tile z negative',
    'GET /maps/tiles/{mapType}/{z}/{x}/{tile}',
    'path',
    { mapType: 'basic', z: '-1', x: '0', tile: '0@1x.png' },
    'z',
  ],
  ['directions without goal', 'GET /maps/directions', 'query', { start: '127,37' }, 'goal'],
  [
    'directions lat,lon swapped out of range',
    'GET /maps/directions',
    'query',
    { start: '37,127', goal: '127,37' },
    'start',
  ],
  [
    'directions unknown option',
    'GET /maps/directions',
    'query',
    { start: '127,37', goal: '128,37', option: 'fastest' },
    'option',
  ],
  [
    'directions six waypoints',
    'GET /maps/directions',
    'query',
    { start: '127,37', goal: '128,37', waypoints: Array(6).fill('127.5,37').join('|') },
    'waypoints',
  ],
  ['places without query', 'GET /maps/places', 'query', { coordinate: '127,37' }, 'query'],
  ['geocode without query', 'GET /maps/geocode', 'query', {}, 'query'],
  ['geocode empty query', 'GET /maps/geocode', 'query', { query: '' }, 'query'],
  ['geocode count 0', 'GET /maps/geocode', 'query', { query: 'a', count: '0' }, 'count'],
  ['geocode count 101', 'GET /maps/geocode', 'query', { query: 'a', count: '101' }, 'count'],
  ['geocode count twice', 'GET /maps/geocode', 'query', { query: 'a', count: ['1', '2'] }, 'count'],
  [
    'geocode language jpn',
    'GET /maps/geocode',
    'query',
    { query: 'a', language: 'jpn' },
    'language',
  ],
  ['geocode unknown parameter', 'GET /maps/geocode', 'query', { query: 'a', limit: '5' }, ''],
  [
    'reverse geocode without coords',
    'GET /maps/reverse-geocode',
    'query',
    { output: 'json' },
    'coords',
  ],
  [
    'reverse geocode output html',
    'GET /maps/reverse-geocode',
    'query',
    { coords: '127,37', output: 'html' },
    'output',
  ],
  [
    'reverse geocode unknown order',
    'GET /maps/reverse-geocode',
    'query',
    { coords: '127,37', orders: 'legalcode,zip' },
    'orders',
  ],
];

describe('maps input schemas', () => {
  checkInputSchemas(mapsEntries, accepted, refused);

  it('splits the tile segment into y, scale and format', () => {
    const parsed = schemaOf(mapsEntries, 'GET /maps/tiles/{mapType}/{z}/{x}/{tile}', 'path').parse({
      mapType: 'basic',
      z: '4',
      x: '15',
      tile: '9@2x.jpg',
    });
    expect(parsed).toEqual({
      mapType: 'basic',
      z: 4,
      x: 15,
      tile: { y: 9, scale: 2, format: 'jpg' },
    });
  });
});
