/** Photoshop's names of its adjustment layers (ag-psd's `type`), as a designer knows them. */
const ADJUSTMENT_NAMES: Readonly<Record<string, string>> = {
  'brightness/contrast': '亮度/对比度',
  levels: '色阶',
  curves: '曲线',
  exposure: '曝光度',
  vibrance: '自然饱和度',
  'hue/saturation': '色相/饱和度',
  'color balance': '色彩平衡',
  'black & white': '黑白',
  'photo filter': '照片滤镜',
  'channel mixer': '通道混合器',
  'color lookup': '颜色查找',
  invert: '反相',
  posterize: '色调分离',
  threshold: '阈值',
  'gradient map': '渐变映射',
  'selective color': '可选颜色',
};

export function adjustmentName(type: string): string {
  return ADJUSTMENT_NAMES[type] ?? type;
}
