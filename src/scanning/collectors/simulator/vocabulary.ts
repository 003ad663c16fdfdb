/** Word lists the simulator draws synthetic people, companies and posts from. Changing one changes every synthetic profile. */
export const FIRST_NAMES = ['Ada', 'Noah', 'Mia', 'Liam', 'Sofia', 'Omar', 'Yuki', 'Elena', 'Kwame', 'Priya', 'Lucas', 'Ines', 'Mateo', 'Hana', 'Jonas', 'Amara'];
export const LAST_NAMES = ['Okafor', 'Lindqvist', 'Moreau', 'Tanaka', 'Haddad', 'Novak', 'Silva', 'Kowalski', 'Brennan', 'Achebe', 'Rossi', 'Nguyen', 'Fischer', 'Costa', 'Mensah', 'Park'];
export const COMPANIES = ['Acme', 'Globex', 'Initech', 'Umbrella Labs', 'Hooli', 'Pied Piper', 'Vandelay Industries', 'Soylent', 'Cyberdyne Systems', 'Wonka Industries', 'Aperture Science', 'Massive Dynamic', 'Oscorp', 'Stark Industries', 'Tyrell Corporation', 'Wayne Enterprises'];
export const ROLES = ['Account Executive', 'Product Manager', 'Software Engineer', 'Data Scientist', 'Customer Success Manager', 'Marketing Lead', 'Sales Development Representative', 'Head of Partnerships', 'UX Designer', 'Solutions Architect', 'Recruiter', 'Engineering Manager', 'Founder', 'Operations Analyst'];
export const FOCUS = ['B2B SaaS', 'developer tools', 'fintech', 'climate tech', 'healthcare data', 'enterprise security', 'e-commerce growth', 'AI products', 'logistics', 'cloud infrastructure'];
export const AUDIENCES = ['revenue teams', 'product teams', 'hospitals', 'retailers', 'developers', 'small businesses', 'CFOs', 'recruiters'];
export const OUTCOMES = ['ship faster', 'grow pipeline', 'cut cloud costs', 'hire better', 'understand their data', 'close the books sooner'];
export const CITIES = ['Berlin, Germany', 'Austin, Texas, United States', 'Lagos, Nigeria', 'Toronto, Ontario, Canada', 'Bengaluru, India', 'Lisbon, Portugal', 'Sydney, Australia', 'Greater London, England', 'São Paulo, Brazil', 'Stockholm, Sweden'];
export const SKILLS = ['Negotiation', 'SQL', 'TypeScript', 'Product Strategy', 'Salesforce', 'Public Speaking', 'Data Analysis', 'Go-to-Market', 'Figma', 'Python', 'Stakeholder Management', 'Kubernetes', 'Content Marketing', 'Forecasting', 'User Research', 'Leadership', 'Cold Calling', 'Machine Learning', 'Pricing', 'Onboarding'];
export const LANGUAGES = ['English', 'Spanish', 'German', 'French', 'Portuguese', 'Hindi', 'Japanese', 'Yoruba', 'Swedish', 'Arabic'];
export const INDUSTRIES = ['Software Development', 'Financial Services', 'Hospital and Health Care', 'Retail', 'Logistics', 'Renewable Energy'];
export const SENTENCES = [
  'I build things that make complicated work feel simple.',
  'Over the last years I have worked with teams on three continents.',
  'Most of my time goes into talking with customers and turning what they say into plans.',
  'Before that I spent a few years in consulting, which taught me to ask better questions.',
  'I care about clear writing, fast feedback and teams that trust each other.',
  'Outside work you will find me running, cooking or reading about urban design.',
  'My focus is on measurable results: shorter cycles, happier customers, fewer surprises.',
  'I mentor early-career people and speak at local meetups a few times a year.',
];
export const CALLS_TO_ACTION = ['Reach out if you want to compare notes.', 'Message me about partnerships.', 'Let’s talk: hello@example.com', 'More at https://example.com/work'];
export const POST_TEXTS = [
  'Three things we learned shipping our new onboarding flow.',
  'Hiring! We are looking for curious people who like hard problems.',
  'Great panel today on pricing. My notes below.',
  'A small thread on why we stopped doing quarterly planning.',
  'Proud of the team for this launch. Link in the comments.',
  'What is the most useful metric you track every week?',
];
export const COMMENT_TEXTS = ['Great point, we saw the same thing.', 'Congratulations to the whole team!', 'Thanks for sharing, very useful.', 'Curious how you measured this?', 'Agree with all of it except the last part.'];
