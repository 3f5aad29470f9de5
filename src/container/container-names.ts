// Container names: dockerd's generated `adjective_surname` names, and the registry that keeps
// every name (and ID prefix lookup) unique across containers.
import { randomInt } from 'node:crypto';
import { conflict } from '../errors.js';

const ADJECTIVES = [
  'admiring', 'adoring', 'affectionate', 'agitated', 'amazing', 'angry', 'awesome', 'beautiful', 'blissful', 'bold',
  'boring', 'brave', 'busy', 'charming', 'clever', 'cool', 'compassionate', 'competent', 'condescending', 'confident',
  'cranky', 'crazy', 'dazzling', 'determined', 'distracted', 'dreamy', 'eager', 'ecstatic', 'elastic', 'elated',
  'elegant', 'eloquent', 'epic', 'exciting', 'fervent', 'festive', 'flamboyant', 'focused', 'friendly', 'frosty',
  'funny', 'gallant', 'gifted', 'goofy', 'gracious', 'great', 'happy', 'hardcore', 'heuristic', 'hopeful',
  'hungry', 'infallible', 'inspiring', 'intelligent', 'interesting', 'jolly', 'jovial', 'keen', 'kind', 'laughing',
  'loving', 'lucid', 'magical', 'mystifying', 'modest', 'musing', 'naughty', 'nervous', 'nice', 'nifty',
  'nostalgic', 'objective', 'optimistic', 'peaceful', 'pedantic', 'pensive', 'practical', 'priceless', 'quirky', 'quizzical',
  'recursing', 'relaxed', 'reverent', 'romantic', 'sad', 'serene', 'sharp', 'silly', 'sleepy', 'stoic',
  'strange', 'stupefied', 'suspicious', 'sweet', 'tender', 'thirsty', 'trusting', 'unruffled', 'upbeat', 'vibrant',
  'vigilant', 'vigorous', 'wizardly', 'wonderful', 'xenodochial', 'youthful', 'zealous', 'zen',
];

const SURNAMES = [
  'agnesi', 'albattani', 'allen', 'almeida', 'antonelli', 'archimedes', 'ardinghelli', 'aryabhata', 'austin', 'babbage',
  'banach', 'bardeen', 'bartik', 'bassi', 'beaver', 'bell', 'benz', 'bhabha', 'bhaskara', 'black',
  'blackburn', 'blackwell', 'bohr', 'booth', 'borg', 'bose', 'bouman', 'boyd', 'brahmagupta', 'brattain',
  'brown', 'buck', 'burnell', 'cannon', 'carson', 'cartwright', 'carver', 'cerf', 'chandrasekhar', 'chaplygin',
  'chatelet', 'chatterjee', 'chaum', 'chebyshev', 'clarke', 'cohen', 'colden', 'cori', 'cray', 'curie',
  'darwin', 'davinci', 'dewdney', 'dhawan', 'diffie', 'dijkstra', 'dirac', 'driscoll', 'dubinsky', 'easley',
  'edison', 'einstein', 'elbakyan', 'elgamal', 'elion', 'ellis', 'engelbart', 'euclid', 'euler', 'faraday',
  'feistel', 'fermat', 'fermi', 'feynman', 'franklin', 'gagarin', 'galileo', 'galois', 'ganguly', 'gates',
  'gauss', 'germain', 'goldberg', 'goldstine', 'goldwasser', 'golick', 'goodall', 'gould', 'greider', 'grothendieck',
  'haibt', 'hamilton', 'haslett', 'hawking', 'heisenberg', 'hellman', 'hermann', 'herschel', 'hertz', 'heyrovsky',
  'hodgkin', 'hofstadter', 'hoover', 'hopper', 'hugle', 'hypatia', 'ishizaka', 'jackson', 'jang', 'jemison',
  'jennings', 'jepsen', 'johnson', 'joliot', 'jones', 'kalam', 'kapitsa', 'kare', 'keldysh', 'keller',
  'kepler', 'khayyam', 'khorana', 'kilby', 'kirch', 'knuth', 'kowalevski', 'lalande', 'lamarr', 'lamport',
  'leakey', 'leavitt', 'lederberg', 'lehmann', 'lewin', 'lichterman', 'liskov', 'lovelace', 'lumiere', 'mahavira',
  'margulis', 'matsumoto', 'maxwell', 'mayer', 'mccarthy', 'mcclintock', 'mclaren', 'mclean', 'mcnulty', 'meitner',
  'mendel', 'mendeleev', 'merkle', 'mestorf', 'mirzakhani', 'montalcini', 'moore', 'morse', 'moser', 'murdock',
  'napier', 'nash', 'neumann', 'newton', 'nightingale', 'nobel', 'noether', 'northcutt', 'noyce', 'panini',
  'pare', 'pascal', 'pasteur', 'payne', 'perlman', 'pike', 'poincare', 'poitras', 'proskuriakova', 'ptolemy',
  'raman', 'ramanujan', 'rhodes', 'ride', 'ritchie', 'robinson', 'roentgen', 'rosalind', 'rubin', 'saha',
  'sammet', 'sanderson', 'satoshi', 'shamir', 'shannon', 'shaw', 'shirley', 'shockley', 'shtern', 'sinoussi',
  'snyder', 'solomon', 'spence', 'stonebraker', 'sutherland', 'swanson', 'swartz', 'swirles', 'taussig', 'tesla',
  'tharp', 'thompson', 'torvalds', 'tu', 'turing', 'varahamihira', 'vaughan', 'villani', 'visvesvaraya', 'volhard',
  'wescoff', 'wilbur', 'wiles', 'williams', 'williamson', 'wilson', 'wing', 'wozniak', 'wright', 'wu',
  'yalow', 'yonath', 'zhukovsky',
];

/** A name as dockerd makes them; after a clash it adds a digit, as namesgenerator.GetRandomName(retry). */
export function generateName(retry: number): string {
  let name = `${ADJECTIVES[randomInt(ADJECTIVES.length)]}_${SURNAMES[randomInt(SURNAMES.length)]}`;
  // dockerd never names a container boring_wozniak ("Steve Wozniak is not boring")
  if (name === 'boring_wozniak') name = 'busy_wozniak';
  return retry > 0 ? `${name}${randomInt(10)}` : name;
}

/** Names in use, each held by one container ID. Names keep their leading slash. */
export class NameRegistry {
  private readonly byName = new Map<string, string>();

  /** Holds `name` for `id`, or throws dockerd's conflict. */
  reserve(name: string, id: string): void {
    const holder = this.byName.get(name);
    if (holder !== undefined && holder !== id) {
      throw conflict(
        `Conflict. The container name "${name}" is already in use by container "${holder}". You have to remove (or rename) that container to be able to reuse that name.`,
      );
    }
    this.byName.set(name, id);
  }

  /** Holds a fresh generated name for `id`. */
  reserveGenerated(id: string): string {
    for (let retry = 0; ; retry++) {
      const name = `/${generateName(retry)}`;
      if (!this.byName.has(name)) {
        this.byName.set(name, id);
        return name;
      }
    }
  }

  release(name: string): void {
    this.byName.delete(name);
  }

  idOf(name: string): string | undefined {
    return this.byName.get(name);
  }
}
