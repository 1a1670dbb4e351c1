import jpeg from 'jpeg-js';
import { describe, expect, it } from 'vitest';
import { emulatorForSuite } from '../../../helpers/emulator.ts';
import { readPng } from '../media/media-checks.ts';
import { bytesOf, catalogueFetch } from './helpers.ts';

const CENTRE = 'center=127.1054328,37.3595963&level=16';

describe('map images', () => {
  const emulator = emulatorForSuite();
  const get = (target: string) => catalogueFetch(emulator, 'GET', target);

  describe('static map, /map-static/v2/raster', () => {
    it('answers a decodable JPEG by default, scaled to fit 256 px with its aspect kept', async () => {
      const response = await get(`/map-static/v2/raster?w=600&h=300&${CENTRE}`);
      const image = jpeg.decode(await bytesOf(response));

      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/jpeg;charset=UTF-8');
      expect([image.width, image.height]).toEqual([256, 128]);
    });

    it('keeps small sizes, doubled by scale 2, and draws markers in red', async () => {
      const marker = encodeURIComponent('type:d|size:mid|color:red|pos:127.1054328 37.3595963');
      const response = await get(
        `/map-static/v2/raster?w=60&h=40&scale=2&format=png&markers=${marker}`,
      );
      const png = readPng(await bytesOf(response));
      const centre = png.rows[40]?.subarray(60 * 3, 60 * 3 + 3);

      expect(response.headers.get('content-type')).toBe('image/png');
      expect([png.width, png.height, png.colourType]).toEqual([120, 80, 2]);
      expect([...(centre ?? [])]).toEqual([226, 56, 48]);
    });

    it('answers png8 as an 8-bit palette PNG', async () => {
      const png = readPng(
        await bytesOf(await get(`/map-static/v2/raster?w=100&h=100&${CENTRE}&format=png8`)),
      );

      expect(png.colourType).toBe(3);
      expect(png.paletteSize).toBeGreaterThan(1);
      expect(png.paletteSize).toBeLessThanOrEqual(256);
    });

    it.each([
      ['no w', `h=100&${CENTRE}`],
      ['w over 4096', `w=4097&h=100&${CENTRE}`],
      ['h over 2048', `w=100&h=2049&${CENTRE}`],
      ['level 22', 'w=100&h=100&center=127,37&level=22'],
      ['scale 3', `w=100&h=100&${CENTRE}&scale=3`],
      ['format gif', `w=100&h=100&${CENTRE}&format=gif`],
      ['an unknown maptype', `w=100&h=100&${CENTRE}&maptype=moon`],
      ['neither centre nor markers', 'w=100&h=100&level=10'],
      ['a centre without level', 'w=100&h=100&center=127,37'],
      ['a marker without pos', `w=100&h=100&markers=${encodeURIComponent('type:d|size:mid')}`],
    ])('refuses %s with 403 and an empty body', async (_, query) => {
      const response = await get(`/map-static/v2/raster?${query}`);

      expect(response.status).toBe(403);
      expect(response.headers.get('x-platform-apigw-response-origin')).toBe('ENDPOINT');
      expect(await response.text()).toBe('');
    });
  });

  describe('tiles, /map-tile/v1/raster/styles/...', () => {
    it('answers a 512 px PNG tile at scale 2', async () => {
      const response = await get('/map-tile/v1/raster/styles/basic/3/2/5@2x.png?mt=bg.ol.lko');
      const png = readPng(await bytesOf(response));

      expect(response.headers.get('content-type')).toBe('image/png');
      expect([png.width, png.height]).toEqual([512, 512]);
    });

    it('answers a 256 px JPEG tile at scale 1, different per tile', async () => {
      const first = await bytesOf(
        await get('/map-tile/v1/raster/styles/satellite/10/872/396@1x.jpg'),
      );
      const second = await bytesOf(
        await get('/map-tile/v1/raster/styles/satellite/10/873/396@1x.jpg'),
      );

      expect(jpeg.decode(first)).toMatchObject({ width: 256, height: 256 });
      expect(first.equals(second)).toBe(false);
    });

    it.each([
      ['x outside zoom 2', 'basic/2/4/0@1x.png'],
      ['zoom 22', 'basic/22/0/0@1x.png'],
      ['scale 3', 'basic/1/0/0@3x.png'],
      ['format gif', 'basic/1/0/0@1x.gif'],
      ['an unknown map type', 'moon/1/0/0@1x.png'],
      ['a negative y', 'basic/1/0/-1@1x.png'],
    ])('refuses %s with 403 and an empty body', async (_, tile) => {
      const response = await get(`/map-tile/v1/raster/styles/${tile}`);

      expect(response.status).toBe(403);
      expect(await response.text()).toBe('');
    });

    it('refuses a malformed mt with 403', async () => {
      expect((await get('/map-tile/v1/raster/styles/basic/1/0/0@1x.png?mt=BG!')).status).toBe(403);
    });
  });
});
