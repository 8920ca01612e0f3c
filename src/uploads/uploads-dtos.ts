import { IsUrl } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';

/** The answer of `POST /uploads/image`. */
export class UploadedImage {
  @IsUrl() @JSONSchema({ format: 'uri', description: 'The public URL of the image, under `PUBLIC_URL`.' })
  url!: string;
}
