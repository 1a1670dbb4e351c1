/**
 * The emulator's gazetteer: a few real Korean addresses with their legal (B) and
 * administrative (H) codes, behind geocoding, reverse geocoding and place search.
 * Coordinates are WGS84 (EPSG:4326).
 */
import type { LonLat } from './params.ts';

export interface GazetteerEntry {
  readonly sido: string;
  readonly sigugun: string;
  /** The legal dong (eup/myeon/dong) of the lot address. */
  readonly dongmyun: string;
  /** The administrative dong that serves it. */
  readonly admDong: string;
  readonly ri: string;
  readonly roadName: string;
  readonly buildingNumber: string;
  readonly buildingName: string;
  /** "178-1": main and sub lot number. */
  readonly landNumber: string;
  readonly postalCode: string;
  readonly englishAddress: string;
  readonly location: LonLat;
  /** 10-digit legal dong code (BCODE). */
  readonly legalCode: string;
  /** 10-digit administrative dong code (HCODE). */
  readonly admCode: string;
  /** What place search knows the spot by. */
  readonly place: { readonly name: string; readonly phone: string };
}

export const GAZETTEER: readonly GazetteerEntry[] = [
  {
    sido: '경기도',
    sigugun: '성남시 분당구',
    dongmyun: '정자동',
    admDong: '정자1동',
    ri: '',
    roadName: '불정로',
    buildingNumber: '6',
    buildingName: 'NAVER그린팩토리',
    landNumber: '178-1',
    postalCode: '13561',
    englishAddress: '6, Buljeong-ro, Bundang-gu, Seongnam-si, Gyeonggi-do, Republic of Korea',
    location: [127.1054328, 37.3595963],
    legalCode: '4113510300',
    admCode: '4113554500',
    place: { name: 'NAVER그린팩토리', phone: '1588-3820' },
  },
  {
    sido: '서울특별시',
    sigugun: '중구',
    dongmyun: '태평로1가',
    admDong: '명동',
    ri: '',
    roadName: '세종대로',
    buildingNumber: '110',
    buildingName: '서울특별시청',
    landNumber: '31',
    postalCode: '04524',
    englishAddress: '110, Sejong-daero, Jung-gu, Seoul, Republic of Korea',
    location: [126.9783882, 37.5666103],
    legalCode: '1114010300',
    admCode: '1114055000',
    place: { name: '서울특별시청', phone: '02-120' },
  },
  {
    sido: '서울특별시',
    sigugun: '강남구',
    dongmyun: '역삼동',
    admDong: '역삼1동',
    ri: '',
    roadName: '강남대로',
    buildingNumber: '396',
    buildingName: '',
    landNumber: '825',
    postalCode: '06232',
    englishAddress: '396, Gangnam-daero, Gangnam-gu, Seoul, Republic of Korea',
    location: [127.0276368, 37.4979502],
    legalCode: '1168010100',
    admCode: '1168064000',
    place: { name: '강남역 2호선', phone: '02-6110-2221' },
  },
  {
    sido: '부산광역시',
    sigugun: '연제구',
    dongmyun: '연산동',
    admDong: '연산5동',
    ri: '',
    roadName: '중앙대로',
    buildingNumber: '1001',
    buildingName: '부산광역시청',
    landNumber: '1000',
    postalCode: '47545',
    englishAddress: '1001, Jungang-daero, Yeonje-gu, Busan, Republic of Korea',
    location: [129.0750222, 35.1798159],
    legalCode: '2647010200',
    admCode: '2647063000',
    place: { name: '부산광역시청', phone: '051-120' },
  },
  {
    sido: '부산광역시',
    sigugun: '동구',
    dongmyun: '초량동',
    admDong: '초량1동',
    ri: '',
    roadName: '중앙대로',
    buildingNumber: '206',
    buildingName: '부산역',
    landNumber: '1187-1',
    postalCode: '48732',
    englishAddress: '206, Jungang-daero, Dong-gu, Busan, Republic of Korea',
    location: [129.0415418, 35.1150753],
    legalCode: '2617010200',
    admCode: '2617051000',
    place: { name: '부산역', phone: '1544-7788' },
  },
  {
    sido: '인천광역시',
    sigugun: '중구',
    dongmyun: '운서동',
    admDong: '운서동',
    ri: '',
    roadName: '공항로',
    buildingNumber: '272',
    buildingName: '인천국제공항',
    landNumber: '2851',
    postalCode: '22382',
    englishAddress: '272, Gonghang-ro, Jung-gu, Incheon, Republic of Korea',
    location: [126.4406957, 37.4601908],
    legalCode: '2811014000',
    admCode: '2811059000',
    place: { name: '인천국제공항 제1여객터미널', phone: '1577-2600' },
  },
  {
    sido: '대전광역시',
    sigugun: '서구',
    dongmyun: '둔산동',
    admDong: '둔산1동',
    ri: '',
    roadName: '둔산로',
    buildingNumber: '100',
    buildingName: '대전광역시청',
    landNumber: '1420',
    postalCode: '35242',
    englishAddress: '100, Dunsan-ro, Seo-gu, Daejeon, Republic of Korea',
    location: [127.3845475, 36.3504119],
    legalCode: '3017011200',
    admCode: '3017063000',
    place: { name: '대전광역시청', phone: '042-120' },
  },
  {
    sido: '제주특별자치도',
    sigugun: '제주시',
    dongmyun: '연동',
    admDong: '연동',
    ri: '',
    roadName: '문연로',
    buildingNumber: '6',
    buildingName: '제주특별자치도청',
    landNumber: '312-1',
    postalCode: '63122',
    englishAddress: '6, Munyeon-ro, Jeju-si, Jeju-do, Republic of Korea',
    location: [126.4983023, 33.4889179],
    legalCode: '5011012200',
    admCode: '5011059000',
    place: { name: '제주특별자치도청', phone: '064-120' },
  },
  {
    sido: '경기도',
    sigugun: '가평군',
    dongmyun: '가평읍',
    admDong: '가평읍',
    ri: '달전리',
    roadName: '가화로',
    buildingNumber: '63',
    buildingName: '',
    landNumber: '440',
    postalCode: '12422',
    englishAddress: '63, Gahwa-ro, Gapyeong-eup, Gapyeong-gun, Gyeonggi-do, Republic of Korea',
    location: [127.5101, 37.8315],
    legalCode: '4182025027',
    admCode: '4182025000',
    place: { name: '가평군청', phone: '031-580-2114' },
  },
];

/** Each province's seat, the centre the reverse geocoder gives for area1. */
export const SIDO_CENTRES: Readonly<Record<string, LonLat>> = {
  서울특별시: [126.9783882, 37.5666103],
  부산광역시: [129.0750222, 35.1798159],
  인천광역시: [126.7052062, 37.4562557],
  대전광역시: [127.3845475, 36.3504119],
  경기도: [127.0095, 37.2752],
  제주특별자치도: [126.4983023, 33.4889179],
};

const joined = (...parts: string[]): string => parts.filter((part) => part !== '').join(' ');

export function roadAddressOf(entry: GazetteerEntry): string {
  return joined(
    entry.sido,
    entry.sigugun,
    entry.roadName,
    entry.buildingNumber,
    entry.buildingName,
  );
}

export function jibunAddressOf(entry: GazetteerEntry): string {
  return joined(
    entry.sido,
    entry.sigugun,
    entry.dongmyun,
    entry.ri,
    entry.landNumber,
    entry.buildingName,
  );
}

/** Coordinates as the Maps APIs print them: strings with 7 decimals. */
export const coordinateText = (value: number): string => value.toFixed(7);
