/**
 * The built-in engine's vocabulary: which words of a prompt it can paint, and what it paints for each.
 * Data only, so a new word is one line here (and one case in builtin-words.test.ts). A phrase written with a
 * space also matches with a hyphen or no space ("half body", "half-body", "halfbody" is not matched: write
 * both where both are common). Order matters where entries overlap: the first entry that matches wins.
 */

export interface WordEntry<T> {
  words: readonly string[];
  value: T;
}

// ───────────────────────── The scene ─────────────────────────

export type SceneKind = 'studio' | 'interior' | 'beach' | 'city' | 'forest' | 'mountain' | 'desert' | 'night' | 'portrait' | 'landscape';

export const SCENE_WORDS: WordEntry<SceneKind>[] = [
  {
    value: 'studio',
    words: ['studio', 'headshot', 'head shot', 'linkedin', 'professional photo', 'backdrop', 'corporate', 'passport photo'],
  },
  {
    value: 'interior',
    words: [
      'cafe',
      'café',
      'coffee shop',
      'restaurant',
      'bar',
      'library',
      'office',
      'room',
      'bedroom',
      'living room',
      'kitchen',
      'indoors',
      'indoor',
      'interior',
      'loft',
      'apartment',
      'museum',
      'window light',
      'window-light',
      'bookshop',
      'bookstore',
    ],
  },
  {
    value: 'beach',
    words: [
      'beach',
      'ocean',
      'sea',
      'seaside',
      'coast',
      'shore',
      'surf',
      'tropical',
      'island',
      'wave',
      'waves',
      'lake',
      'harbor',
      'harbour',
    ],
  },
  {
    value: 'city',
    words: [
      'city',
      'cities',
      'street',
      'streets',
      'urban',
      'downtown',
      'skyline',
      'neon',
      'tokyo',
      'new york',
      'paris',
      'london',
      'rooftop',
      'building',
      'buildings',
      'alley',
      'crosswalk',
      'subway',
      'avenue',
      'sidewalk',
    ],
  },
  {
    value: 'forest',
    words: ['forest', 'wood', 'woods', 'jungle', 'tree', 'trees', 'garden', 'park', 'meadow', 'nature', 'field', 'orchard'],
  },
  {
    value: 'mountain',
    words: ['mountain', 'mountains', 'alps', 'peak', 'peaks', 'hike', 'hiking', 'glacier', 'valley', 'cliff', 'summit'],
  },
  { value: 'desert', words: ['desert', 'dune', 'dunes', 'sahara', 'canyon'] },
  { value: 'night', words: ['night sky', 'starry', 'stars', 'galaxy', 'space', 'milky way', 'moon'] },
];

/** What an interior shows: shelves of books, a café's lamps and counter, or a room with a window. */
export type Interior = 'shelves' | 'cafe' | 'room';

export const INTERIOR_WORDS: WordEntry<Interior>[] = [
  { value: 'shelves', words: ['library', 'bookshop', 'bookstore', 'bookshelf', 'bookshelves', 'books', 'study'] },
  { value: 'cafe', words: ['cafe', 'café', 'coffee shop', 'coffee', 'restaurant', 'bar', 'kitchen', 'bakery'] },
];

export type TimeOfDay = 'night' | 'golden';

export const TIME_WORDS: WordEntry<TimeOfDay>[] = [
  { value: 'night', words: ['night', 'nighttime', 'midnight', 'evening', 'moonlit', 'moonlight', 'neon', 'starry', 'after dark'] },
  { value: 'golden', words: ['golden hour', 'sunset', 'sunrise', 'dusk', 'dawn', 'warm light', 'golden light', 'magic hour'] },
];

export type Weather = 'snow' | 'rain' | 'fog';

export const WEATHER_WORDS: WordEntry<Weather>[] = [
  { value: 'snow', words: ['snow', 'snowy', 'snowing', 'snowfall', 'snowflakes', 'blizzard', 'winter', 'wintry', 'frosty'] },
  { value: 'rain', words: ['rain', 'rainy', 'raining', 'rainfall', 'drizzle', 'storm', 'stormy', 'downpour', 'wet street', 'puddles'] },
  { value: 'fog', words: ['fog', 'foggy', 'mist', 'misty', 'haze', 'hazy'] },
];

// ───────────────────────── The person ─────────────────────────

/** Words that put a person in the picture even when no gender is named. */
export const PERSON_WORDS: readonly string[] = [
  'portrait',
  'headshot',
  'head shot',
  'selfie',
  'close up',
  'closeup',
  'face',
  'person',
  'people',
  'someone',
  'somebody',
  'human',
  'couple',
  'model',
  'character',
  'wearing',
  'dressed',
  'smiling',
  'posing',
  'standing',
  'walking',
  'sitting',
  'surfer',
  'hiker',
  'climber',
  'skier',
  'cyclist',
  'skater',
  'swimmer',
  'runner',
  'dancer',
  'athlete',
  'boxer',
  'yogi',
  'chef',
  'baker',
  'barista',
  'bartender',
  'doctor',
  'nurse',
  'scientist',
  'engineer',
  'teacher',
  'professor',
  'student',
  'lawyer',
  'artist',
  'painter',
  'photographer',
  'writer',
  'designer',
  'musician',
  'singer',
  'guitarist',
  'pianist',
  'dj',
  'traveler',
  'traveller',
  'tourist',
  'explorer',
  'adventurer',
  'astronaut',
  'pilot',
  'sailor',
  'soldier',
  'firefighter',
  'farmer',
  'detective',
  'cowboy',
  'knight',
  'warrior',
  'wizard',
  'witch',
  'entrepreneur',
  'executive',
  'ceo',
  'founder',
  'manager',
  'professional',
  'influencer',
  'worker',
  'employee',
  'gamer',
  'streamer',
];

/** Words that dress a person for work when the prompt names no clothes: a blazer over a shirt or blouse. */
export const FORMAL_WORDS: readonly string[] = [
  'business',
  'businessman',
  'businesswoman',
  'corporate',
  'office',
  'executive',
  'ceo',
  'lawyer',
  'entrepreneur',
  'founder',
  'manager',
  'professional',
  'linkedin',
  'interview',
  'conference',
  'boardroom',
  'headshot',
  'formal',
];

export type Gender = 'feminine' | 'masculine';

export const GENDER_WORDS: WordEntry<Gender>[] = [
  {
    value: 'feminine',
    words: [
      'woman',
      'women',
      'girl',
      'lady',
      'female',
      'she',
      'her',
      'actress',
      'businesswoman',
      'mother',
      'mom',
      'grandmother',
      'grandma',
      'bride',
      'queen',
      'princess',
      'wife',
      'sister',
      'daughter',
      'waitress',
      'ballerina',
      'heroine',
      'feminine',
    ],
  },
  {
    value: 'masculine',
    words: [
      'man',
      'men',
      'boy',
      'guy',
      'male',
      'he',
      'his',
      'actor',
      'businessman',
      'father',
      'dad',
      'grandfather',
      'grandpa',
      'groom',
      'king',
      'prince',
      'husband',
      'brother',
      'son',
      'gentleman',
      'waiter',
      'hero',
      'masculine',
    ],
  },
];

/** Gender words that refer back to a person already named, so they never name a second one. */
export const PRONOUNS: readonly string[] = ['she', 'her', 'he', 'his'];

/**
 * Words that put two people in the picture, with their genders when the words say. A second person is also
 * read when a prompt names two ("a man and a woman", "a woman and her husband").
 */
export const PAIR_WORDS: WordEntry<readonly [Gender | null, Gender | null]>[] = [
  { value: ['feminine', 'feminine'], words: ['two women', 'two girls', 'two sisters', 'two ladies'] },
  { value: ['masculine', 'masculine'], words: ['two men', 'two boys', 'two brothers', 'two guys'] },
  { value: [null, null], words: ['couple', 'two people', 'two friends', 'pair of friends', 'best friends', 'lovers', 'newlyweds', 'duo'] },
];

export type Age = 'child' | 'young' | 'middle' | 'elderly';

export const AGE_WORDS: WordEntry<Age>[] = [
  { value: 'child', words: ['child', 'children', 'kid', 'kids', 'toddler', 'little girl', 'little boy', 'schoolgirl', 'schoolboy'] },
  {
    value: 'middle',
    words: ['middle aged', 'middle-aged', 'mature', 'in his forties', 'in her forties', 'in his fifties', 'in her fifties'],
  },
  {
    value: 'elderly',
    words: [
      'elderly',
      'old man',
      'old woman',
      'old lady',
      'old person',
      'senior',
      'grandmother',
      'grandfather',
      'grandma',
      'grandpa',
      'retired',
      'aged',
      'wrinkled',
      'in his seventies',
      'in her seventies',
      'in his eighties',
      'in her eighties',
    ],
  },
  { value: 'young', words: ['young', 'youthful', 'teen', 'teenager', 'teenage', 'in his twenties', 'in her twenties', 'student'] },
];

/**
 * Skin tones the painter uses, lightest to deepest (face colour, shade). A heritage or skin word narrows the
 * choice to a few neighbouring tones; without one the seed picks from all of them.
 */
export const SKIN_TONES: readonly (readonly [string, string])[] = [
  ['#f6d7c3', '#e2b69c'],
  ['#f0c6a4', '#d9a582'],
  ['#e8b894', '#d29a74'],
  ['#d9a27a', '#bf855e'],
  ['#c08560', '#a56c4a'],
  ['#9a6445', '#7f4f35'],
  ['#7a4a32', '#613826'],
  ['#5c3523', '#47281a'],
];

/** [first, last] index into SKIN_TONES. */
export const SKIN_WORDS: WordEntry<readonly [number, number]>[] = [
  { value: [0, 1], words: ['pale', 'fair skinned', 'fair-skinned', 'freckled', 'scandinavian', 'nordic', 'irish', 'caucasian'] },
  { value: [1, 2], words: ['east asian', 'chinese', 'japanese', 'korean', 'vietnamese'] },
  {
    value: [2, 4],
    words: [
      'hispanic',
      'latina',
      'latino',
      'mexican',
      'middle eastern',
      'arab',
      'persian',
      'turkish',
      'mediterranean',
      'olive skinned',
      'olive-skinned',
      'brazilian',
      'tanned',
    ],
  },
  {
    value: [3, 5],
    words: [
      'south asian',
      'indian',
      'pakistani',
      'bangladeshi',
      'sri lankan',
      'southeast asian',
      'filipino',
      'mixed heritage',
      'mixed-heritage',
      'mixed race',
      'biracial',
    ],
  },
  {
    value: [5, 7],
    words: [
      'african',
      'african american',
      'nigerian',
      'ghanaian',
      'kenyan',
      'ethiopian',
      'dark skinned',
      'dark-skinned',
      'black woman',
      'black man',
      'black person',
      'black girl',
      'black boy',
    ],
  },
];

export type HairStyle = 'long' | 'wavy' | 'short' | 'curly' | 'bun' | 'ponytail' | 'bob' | 'bald';

export const HAIR_STYLE_WORDS: WordEntry<HairStyle>[] = [
  { value: 'bald', words: ['bald', 'shaved head', 'shaven head', 'buzz cut', 'buzzcut'] },
  { value: 'curly', words: ['curly', 'curls', 'afro', 'coily', 'kinky hair', 'ringlets'] },
  { value: 'bun', words: ['bun', 'updo', 'top knot', 'topknot', 'chignon'] },
  { value: 'ponytail', words: ['ponytail', 'pony tail', 'braid', 'braids', 'braided', 'plait'] },
  {
    value: 'bob',
    words: [
      'a bob',
      'short bob',
      'long bob',
      'bob cut',
      'bob haircut',
      'bobbed',
      'pixie',
      'pixie cut',
      'shoulder length',
      'shoulder-length',
      'chin length',
    ],
  },
  { value: 'wavy', words: ['wavy', 'windswept', 'wind in the hair', 'wind in her hair', 'beach waves'] },
  { value: 'long', words: ['long-haired', 'long haired', 'hair down'] },
  { value: 'short', words: ['short-haired', 'short haired', 'crew cut', 'undercut', 'slicked back', 'close cropped', 'close-cropped'] },
];

/** Length words that describe hair only when "hair" follows within two words ("long black hair", "short wavy hair"). */
export const HAIR_LENGTH_WORDS: WordEntry<HairStyle>[] = [
  { value: 'long', words: ['long', 'straight', 'sleek', 'flowing'] },
  { value: 'short', words: ['short', 'cropped', 'buzzed', 'neat'] },
];

/** Hair colours, by the words that name them next to "hair" (or alone, for words only hair has). */
export const HAIR_COLOUR_WORDS: WordEntry<string>[] = [
  { value: '#a9a7a3', words: ['gray', 'grey', 'silver', 'salt and pepper', 'graying', 'greying'] },
  { value: '#ebe7df', words: ['white', 'snow white', 'platinum'] },
  { value: '#1c1512', words: ['black', 'jet black', 'raven', 'dark'] },
  { value: '#4a2e1c', words: ['brown', 'brunette', 'chestnut', 'chocolate', 'dark brown'] },
  { value: '#a7441d', words: ['red', 'ginger', 'auburn', 'copper', 'redhead', 'strawberry'] },
  { value: '#d8b36a', words: ['blonde', 'blond', 'golden', 'honey', 'sandy', 'light brown'] },
  { value: '#e07aa6', words: ['pink'] },
  { value: '#3d6fd1', words: ['blue'] },
  { value: '#7b4fc4', words: ['purple', 'violet', 'lilac', 'lavender'] },
  { value: '#3f9a63', words: ['green'] },
];

/** Words that name a hair colour with no "hair" after them. */
export const HAIR_ONLY_COLOUR_WORDS: WordEntry<string>[] = [
  { value: '#d8b36a', words: ['blonde', 'blond'] },
  { value: '#4a2e1c', words: ['brunette'] },
  { value: '#a7441d', words: ['redhead', 'ginger', 'auburn-haired'] },
  { value: '#a9a7a3', words: ['gray-haired', 'grey-haired', 'silver-haired', 'gray haired', 'grey haired', 'silver haired'] },
  { value: '#ebe7df', words: ['white-haired', 'white haired'] },
  { value: '#1c1512', words: ['dark-haired', 'dark haired', 'black-haired'] },
];

export const BEARD_WORDS: readonly string[] = ['beard', 'bearded', 'stubble', 'moustache', 'mustache', 'goatee'];

/** Colours of clothes and accessories (also of the scene when a colour word names nothing worn). */
export const COLOUR_WORDS: WordEntry<string>[] = [
  { value: '#8fb5e0', words: ['light blue', 'sky blue', 'baby blue', 'powder blue'] },
  { value: '#1f2b4d', words: ['navy', 'navy blue', 'midnight blue', 'dark blue'] },
  { value: '#1f5a3a', words: ['dark green', 'forest green', 'bottle green', 'hunter green'] },
  { value: '#6e1a2c', words: ['burgundy', 'maroon', 'wine', 'oxblood', 'dark red'] },
  { value: '#35383f', words: ['charcoal', 'dark gray', 'dark grey', 'graphite'] },
  { value: '#b9bcc2', words: ['light gray', 'light grey', 'silver', 'heather'] },
  { value: '#c8202a', words: ['red', 'scarlet', 'crimson', 'cherry', 'ruby'] },
  { value: '#e0692a', words: ['orange', 'rust', 'tangerine', 'amber', 'copper'] },
  { value: '#e3b23c', words: ['yellow', 'mustard', 'gold', 'golden', 'ochre'] },
  { value: '#c4a47a', words: ['beige', 'camel', 'tan', 'khaki', 'sand', 'taupe'] },
  { value: '#6b4428', words: ['brown', 'chocolate', 'coffee', 'cognac', 'mocha'] },
  { value: '#1f7a5a', words: ['emerald', 'jade'] },
  { value: '#2f8a4a', words: ['green', 'kelly green', 'lime'] },
  { value: '#6b7a3a', words: ['olive', 'army green', 'sage', 'moss'] },
  { value: '#1f8a8a', words: ['teal', 'turquoise', 'aqua', 'cyan'] },
  { value: '#2f5fc0', words: ['blue', 'royal blue', 'cobalt', 'azure', 'sapphire', 'electric blue'] },
  { value: '#4a6a94', words: ['denim', 'indigo', 'chambray'] },
  { value: '#6a3fa0', words: ['purple', 'violet', 'plum', 'magenta'] },
  { value: '#b9a2d8', words: ['lavender', 'lilac', 'mauve'] },
  { value: '#e58aa8', words: ['pink', 'rose', 'blush', 'fuchsia', 'salmon', 'coral'] },
  { value: '#1a1b20', words: ['black', 'jet black', 'ebony', 'noir'] },
  { value: '#7f848c', words: ['gray', 'grey', 'slate', 'ash'] },
  { value: '#f3f1ec', words: ['white', 'snow white', 'bright white'] },
  { value: '#ede3cf', words: ['cream', 'ivory', 'off white', 'off-white', 'ecru', 'oatmeal', 'bone'] },
];

/** Where a garment sits: worn over the top, the top itself, a dress (top and bottom in one), or the bottom. */
export type GarmentLayer = 'outer' | 'top' | 'dress' | 'bottom';

export type GarmentKind =
  | 'coat'
  | 'trench'
  | 'puffer'
  | 'blazer'
  | 'suit'
  | 'jacket'
  | 'leather-jacket'
  | 'hoodie'
  | 'cardigan'
  | 'shirt'
  | 'blouse'
  | 't-shirt'
  | 'sweater'
  | 'turtleneck'
  | 'tank'
  | 'dress'
  | 'gown'
  | 'trousers'
  | 'jeans'
  | 'skirt'
  | 'shorts';

export const GARMENT_WORDS: WordEntry<{ kind: GarmentKind; layer: GarmentLayer }>[] = [
  { value: { kind: 'trench', layer: 'outer' }, words: ['trench coat', 'trenchcoat', 'trench', 'raincoat'] },
  { value: { kind: 'puffer', layer: 'outer' }, words: ['puffer', 'puffer jacket', 'down jacket', 'parka', 'anorak', 'ski jacket'] },
  { value: { kind: 'coat', layer: 'outer' }, words: ['coat', 'overcoat', 'peacoat', 'pea coat', 'topcoat', 'wool coat', 'long coat'] },
  { value: { kind: 'suit', layer: 'outer' }, words: ['suit', 'tuxedo', 'pantsuit', 'business suit', 'three piece suit'] },
  { value: { kind: 'blazer', layer: 'outer' }, words: ['blazer', 'sport coat', 'suit jacket', 'tailored jacket'] },
  { value: { kind: 'leather-jacket', layer: 'outer' }, words: ['leather jacket', 'biker jacket', 'motorcycle jacket'] },
  { value: { kind: 'jacket', layer: 'outer' }, words: ['jacket', 'jean jacket', 'bomber', 'bomber jacket', 'windbreaker', 'field jacket'] },
  { value: { kind: 'hoodie', layer: 'outer' }, words: ['hoodie', 'hooded sweatshirt'] },
  { value: { kind: 'cardigan', layer: 'outer' }, words: ['cardigan'] },
  { value: { kind: 'gown', layer: 'dress' }, words: ['gown', 'evening gown', 'ball gown', 'wedding dress', 'maxi dress', 'long dress'] },
  { value: { kind: 'dress', layer: 'dress' }, words: ['dress', 'sundress', 'cocktail dress', 'frock', 'jumpsuit'] },
  { value: { kind: 'turtleneck', layer: 'top' }, words: ['turtleneck', 'turtle neck', 'roll neck', 'polo neck', 'mock neck'] },
  { value: { kind: 'sweater', layer: 'top' }, words: ['sweater', 'jumper', 'pullover', 'knitwear', 'sweatshirt'] },
  { value: { kind: 'blouse', layer: 'top' }, words: ['blouse', 'silk top'] },
  {
    value: { kind: 'shirt', layer: 'top' },
    words: ['shirt', 'button down', 'button-down', 'button up', 'dress shirt', 'oxford shirt', 'flannel', 'polo', 'polo shirt'],
  },
  { value: { kind: 't-shirt', layer: 'top' }, words: ['t shirt', 't-shirt', 'tshirt', 'tee', 'crop top'] },
  { value: { kind: 'tank', layer: 'top' }, words: ['tank top', 'camisole', 'vest top', 'sleeveless top'] },
  { value: { kind: 'jeans', layer: 'bottom' }, words: ['jeans', 'denims'] },
  { value: { kind: 'skirt', layer: 'bottom' }, words: ['skirt', 'miniskirt', 'midi skirt', 'pencil skirt'] },
  { value: { kind: 'shorts', layer: 'bottom' }, words: ['shorts'] },
  { value: { kind: 'trousers', layer: 'bottom' }, words: ['trousers', 'pants', 'slacks', 'chinos', 'leggings'] },
];

/**
 * Words allowed between a colour word and the thing it colours ("a red wool coat", "navy pinstripe suit"):
 * fabrics, cuts and sizes, never a noun that could be coloured itself.
 */
export const GARMENT_MODIFIERS: readonly string[] = [
  'wool',
  'woolen',
  'woollen',
  'silk',
  'silky',
  'satin',
  'linen',
  'cotton',
  'velvet',
  'cashmere',
  'knit',
  'knitted',
  'chunky',
  'leather',
  'suede',
  'denim',
  'corduroy',
  'tweed',
  'sequined',
  'lace',
  'oversized',
  'fitted',
  'tailored',
  'slim',
  'long',
  'short',
  'cropped',
  'classic',
  'elegant',
  'casual',
  'formal',
  'vintage',
  'flowing',
  'floral',
  'striped',
  'pinstripe',
  'plaid',
  'checked',
  'double-breasted',
  'double breasted',
  'button-down',
  'hooded',
  'puffy',
  'quilted',
  'light',
  'heavy',
  'warm',
  'winter',
  'summer',
  'evening',
  'cocktail',
  'simple',
  'crisp',
  'loose',
  'bright',
  'pale',
  'deep',
  'dark',
  'rain',
  'trench',
  'wrap',
  'midi',
  'maxi',
  'mini',
  'sleeveless',
  'crew-neck',
  'v-neck',
];

export type AccessoryKind =
  'glasses' | 'sunglasses' | 'hat' | 'beanie' | 'cap' | 'scarf' | 'tie' | 'earrings' | 'necklace' | 'umbrella' | 'headphones';

export const ACCESSORY_WORDS: WordEntry<AccessoryKind>[] = [
  { value: 'sunglasses', words: ['sunglasses', 'sun glasses', 'aviators'] },
  { value: 'glasses', words: ['glasses', 'eyeglasses', 'spectacles', 'specs', 'bespectacled'] },
  { value: 'beanie', words: ['beanie', 'woolly hat', 'knit hat', 'knitted hat', 'bobble hat', 'winter hat', 'toque'] },
  { value: 'cap', words: ['cap', 'baseball cap', 'flat cap'] },
  { value: 'hat', words: ['hat', 'fedora', 'sun hat', 'straw hat', 'cowboy hat', 'bowler', 'trilby', 'panama hat', 'beret'] },
  { value: 'scarf', words: ['scarf', 'muffler', 'shawl'] },
  { value: 'tie', words: ['tie', 'necktie', 'bow tie'] },
  { value: 'earrings', words: ['earrings', 'earring', 'hoops', 'hoop earrings'] },
  { value: 'necklace', words: ['necklace', 'pearls', 'pendant'] },
  { value: 'umbrella', words: ['umbrella', 'parasol'] },
  { value: 'headphones', words: ['headphones', 'headset'] },
];

export type Framing = 'head' | 'half' | 'full';

/** Framing said outright wins over framing implied by what the person does. */
export const FRAMING_WORDS: WordEntry<Framing>[] = [
  {
    value: 'full',
    words: ['full body', 'full-body', 'full length', 'full-length', 'head to toe', 'head-to-toe', 'whole body', 'wide shot'],
  },
  {
    value: 'half',
    words: ['half body', 'half-body', 'waist up', 'waist-up', 'upper body', 'medium shot', 'mid shot', 'three quarter', 'three-quarter'],
  },
  {
    value: 'head',
    words: [
      'headshot',
      'head shot',
      'close up',
      'close-up',
      'closeup',
      'face',
      'selfie',
      'profile picture',
      'profile photo',
      'avatar',
      'passport photo',
      'linkedin',
      'bust',
    ],
  },
];

export const IMPLIED_FRAMING_WORDS: WordEntry<Framing>[] = [
  {
    value: 'full',
    words: [
      'walking',
      'walks',
      'strolling',
      'standing',
      'stands',
      'running',
      'runs',
      'jogging',
      'dancing',
      'dances',
      'hiking',
      'jumping',
      'crossing',
      'skateboarding',
      'posing on',
      'in the distance',
    ],
  },
  { value: 'half', words: ['reading', 'sitting', 'seated', 'drinking', 'holding', 'laughing', 'lifestyle', 'candid', 'working'] },
  { value: 'head', words: ['portrait', 'looking at the camera', 'smiling at the camera'] },
];

/** Whether the person walks (a stride in a full-body picture). */
export const WALKING_WORDS: readonly string[] = [
  'walking',
  'walks',
  'strolling',
  'running',
  'runs',
  'jogging',
  'hiking',
  'crossing',
  'striding',
];
